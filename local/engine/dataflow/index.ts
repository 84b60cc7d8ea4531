/**
 * Per-state data flow in both query languages (the executor's side of the seam is ./types).
 */
import type { QueryLanguage, StateDataFlow } from './types';
import { jsonataDataFlow } from './jsonata/jsonata-data-flow';

export * from './types';
export * from './errors';
export { jsonataDataFlow } from './jsonata/jsonata-data-flow';
export { compileJsonata, isJsonataExpression } from './jsonata/expressions';

/** The data flow of a state whose effective query language is `language`. */
export function dataFlowFor(language: QueryLanguage): StateDataFlow {
  switch (language) {
    case 'JSONata':
      return jsonataDataFlow;
    case 'JSONPath':
      throw new Error('The JSONPath data flow is not built yet (it lands in the next commit).');
  }
}
