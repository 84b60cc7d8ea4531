/** Definition validation at CreateStateMachine, and the prepared definition the engine runs. */
export {
  validateDefinition,
  type StateMachineType,
  type ValidationOptions,
  JSONPATH_ONLY_FIELDS,
  JSONATA_ONLY_FIELDS,
  DISTRIBUTED_MAP_FIELDS,
} from './validate-definition';
export { InvalidDefinitionError, type DefinitionProblem } from './invalid-definition-error';
export { prepareDefinition, MAP_ITEMS, STATE_TYPES } from './prepared-definition';
export type {
  PreparedDefinition,
  PreparedState,
  PreparedStateList,
  StateListPath,
  StateType,
  UnservedTask,
} from './prepared-definition';
export { DefinitionCache, MAX_CACHED_DEFINITIONS } from './definition-cache';
