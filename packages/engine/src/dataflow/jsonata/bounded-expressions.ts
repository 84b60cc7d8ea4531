/**
 * Which JSONata expressions cannot run away: those whose work is bounded by their own size times the size
 * of the data they read (at most 256 KiB per payload). They need no budget, and JSONata then skips the two
 * awaited hooks it runs around every step (evaluation-budget.ts), which cost a small expression a quarter
 * of its time (9.2 µs without them, 11.3 µs with, for `{ "id": ..., "total": a + b }`).
 *
 * What keeps the work linear: no functions of the workflow's own (lambdas, partial application, `~>`), no
 * regex, no range (`1..n`), no predicate, sort, grouping or focus on a path step, no path step after the
 * first that is not a plain field name (`$a.$b` maps one array over another), and calls only to built-in
 * functions that do a single pass over their arguments. Anything else keeps the hooks and the budget.
 */

/** A node of JSONata's AST, as `Expression.ast()` returns it (the fields this module reads). */
interface AstNode {
  readonly type: string;
  readonly value?: unknown;
  readonly steps?: readonly AstNode[];
  readonly expressions?: readonly AstNode[];
  readonly arguments?: readonly AstNode[];
  readonly procedure?: AstNode;
  readonly lhs?: AstNode | readonly (readonly [AstNode, AstNode])[];
  readonly rhs?: AstNode;
  readonly expression?: AstNode;
  readonly condition?: AstNode;
  readonly then?: AstNode;
  readonly else?: AstNode;
  readonly stages?: readonly unknown[];
  readonly predicate?: readonly unknown[];
  readonly group?: unknown;
  readonly focus?: unknown;
  readonly index?: unknown;
  readonly tuple?: unknown;
}

/**
 * Built-in functions that make one pass over their arguments and build at most what they read. Left out:
 * the higher-order ones (`$map`, `$filter`, `$reduce`, `$sort`, ...), `$eval`, the ones that build from a
 * number (`$pad`, `$range`, `$partition`), `$distinct` (quadratic), `$replace`, and the ones that search
 * a string for another (`$contains`, `$split`, `$substringBefore`/`After`: a search may be quadratic).
 */
const SINGLE_PASS_FUNCTIONS: ReadonlySet<string> = new Set([
  'abs',
  'append',
  'average',
  'base64decode',
  'base64encode',
  'boolean',
  'ceil',
  'count',
  'decodeUrl',
  'decodeUrlComponent',
  'encodeUrl',
  'encodeUrlComponent',
  'exists',
  'floor',
  'formatBase',
  'formatInteger',
  'formatNumber',
  'fromMillis',
  'hash',
  'join',
  'keys',
  'length',
  'lookup',
  'lowercase',
  'max',
  'merge',
  'millis',
  'min',
  'not',
  'now',
  'number',
  'parse',
  'parseInteger',
  'power',
  'random',
  'reverse',
  'round',
  'spread',
  'sqrt',
  'string',
  'substring',
  'sum',
  'toMillis',
  'trim',
  'type',
  'uppercase',
  'uuid',
]);

/** Node types that do a fixed amount of work beside their children's. */
const LEAVES: ReadonlySet<string> = new Set(['string', 'number', 'value', 'variable', 'name']);

/** Whether evaluating `node` is bounded by its size times the size of what it reads (see above). */
export function isBoundedExpression(node: AstNode): boolean {
  if (node.stages || node.predicate || node.group || node.focus || node.index || node.tuple) return false;
  if (LEAVES.has(node.type)) return true;
  switch (node.type) {
    case 'path':
      return (node.steps ?? []).every(
        (step, i) => (step.type === 'name' || (i === 0 && step.type !== 'wildcard')) && isBoundedExpression(step),
      );
    case 'binary':
      return node.value !== '..' && isBounded(node.lhs) && isBounded(node.rhs);
    case 'unary':
      if (node.value === '-') return isBounded(node.expression);
      if (node.value === '[') return (node.expressions ?? []).every(isBoundedExpression);
      if (node.value === '{') return pairsBounded(node.lhs);
      return false;
    case 'condition':
      return isBounded(node.condition) && isBounded(node.then) && (node.else === undefined || isBounded(node.else));
    case 'block':
      return (node.expressions ?? []).every(isBoundedExpression);
    case 'bind':
      return isBounded(node.lhs) && isBounded(node.rhs);
    case 'function':
      return (
        node.procedure?.type === 'variable' &&
        SINGLE_PASS_FUNCTIONS.has(String(node.procedure.value)) &&
        (node.arguments ?? []).every(isBoundedExpression)
      );
    default:
      return false;
  }
}

function isBounded(node: AstNode | readonly (readonly [AstNode, AstNode])[] | undefined): boolean {
  return node !== undefined && !Array.isArray(node) && isBoundedExpression(node as AstNode);
}

function pairsBounded(pairs: AstNode | readonly (readonly [AstNode, AstNode])[] | undefined): boolean {
  return Array.isArray(pairs) && pairs.every(([key, value]) => isBoundedExpression(key) && isBoundedExpression(value));
}
