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

/** The data flow of a state whose effective query language is `language`. */
export function dataFlowFor(language: QueryLanguage): StateDataFlow {
  switch (language) {
    case 'JSONata':
      return jsonataDataFlow;
    case 'JSONPath':
      return jsonPathDataFlow;
  }
}
