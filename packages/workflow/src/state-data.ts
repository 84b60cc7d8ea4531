/**
 * The state data every compiled workflow passes between states (docs/architecture.md §1):
 * `{ "input": <execution input>, "steps": { "<stepName>": <result> } }`. These helpers write the
 * JSONata that reads and extends it, so every step kind does it the same way.
 */

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A JSONata field name: bare when it is an identifier, back-quoted otherwise (`verify-site`). */
export function fieldName(name: string): string {
  return PLAIN_NAME.test(name) ? name : '`' + name + '`';
}

/** JSONata path of a field list, e.g. `$states.input.steps.`verify-site`.code`. */
export function jsonataPath(root: string, fields: readonly string[]): string {
  return [root, ...fields.map(fieldName)].join('.');
}

/** JSONata for the execution input inside the state data. */
export const INPUT_ROOT = '$states.input.input';
/** JSONata for the step results inside the state data. */
export const STEPS_ROOT = '$states.input.steps';

/** JSONata for one step's recorded result. */
export function stepResult(step: string): string {
  return jsonataPath(STEPS_ROOT, [step]);
}

/** Wraps a JSONata expression as an ASL JSONata string. */
export function jsonata(expression: string): string {
  return `{% ${expression} %}`;
}

/**
 * The `Output` of a state that records `resultExpression` (JSONata) as the result of `step` and keeps
 * everything else of the state data.
 */
export function recordStepResult(step: string, resultExpression: string): string {
  return jsonata(
    `$merge([$states.input, {"steps": $merge([$states.input.steps, {${JSON.stringify(step)}: ${resultExpression}}])}])`,
  );
}
