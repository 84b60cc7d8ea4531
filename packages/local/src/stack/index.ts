/**
 * The stack mode: the engine runs a cloud assembly (`cdk.out`) — the very template and bundles
 * `cdk deploy` uploads — and `deploy` applies a new one as a CloudFormation update would.
 */
export { StackMode, type StackModeOptions, type StackSummary } from './stack-mode';
export {
  deployStack,
  assemblyIdOf,
  dependencyOrder,
  type StackDeployment,
  type ResourceChange,
  type DeployStackOptions,
} from './deploy-stack';
export {
  StackResourceNotEmulatedError,
  StackResourceInvalidError,
  rolloutRoutes,
  aliasRouting,
  type RolloutState,
} from './resource-handlers';
export { matchesEventPattern, type EventPattern } from '../services/eventbridge';
export { sandboxEnvironment } from './stack-runtime';
export { ENGINE_URL_TOKEN } from './stack-functions';
export { StackIamEnforcement, denialOf, type StackIamEnforcementOptions } from './iam-enforcement';
