/**
 * Per-state data flow in both query languages (the executor's side of the seam is ./types).
 */
import type { QueryLanguage, StateDataFlow } from './types';
import { jsonataDataFlow } from './jsonata/jsonata-data-flow';
import { jsonPathDataFlow } from './jsonpath/jsonpath-data-flow';

export * from './types';
export * from './errors';
export { jsonataDataFlow } from './jsonata/jsonata-data-flow';
export { jsonPathDataFlow } from './jsonpath/jsonpath-data-flow';
export { compileIntrinsic, INTRINSIC_FUNCTIONS } from './jsonpath/intrinsics/intrinsic-functions';
export { readPath, setReferencePath } from './jsonpath/paths';
export { compileJsonata, isJsonataExpression } from './jsonata/expressions';
export {
  DEFAULT_EXPRESSION_LIMITS,
  EvaluationDeferredError,
  type EvaluationWatch,
  type ExpressionLimits,
} from './jsonata/evaluation-budget';

// What the definition validator checks statically, ahead of any run.
export { forEachString, isMalformedJsonataExpression } from './jsonata/expressions';
export { JSONATA_FIELDS } from './jsonata/jsonata-data-flow';
export { isIntrinsicCall } from './jsonpath/intrinsics/parse-intrinsic';
export { definiteSteps } from './jsonpath/paths';
export { forEachDynamic } from './jsonpath/payload-template';
export { CHOICE_OPERATORS, operatorOf } from './jsonpath/choice-rules';
export { parseTimestamp } from './shared/values';
export { wildcardMatcher, type WildcardMatcher } from './shared/wildcard';

/** The data flow of a state whose effective query language is `language`. */
export function dataFlowFor(language: QueryLanguage): StateDataFlow {
  switch (language) {
    case 'JSONata':
      return jsonataDataFlow;
    case 'JSONPath':
      return jsonPathDataFlow;
  }
}
export { jsonPathProblem } from './jsonpath/path-syntax';
