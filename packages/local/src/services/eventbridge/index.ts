export { matchesEventPattern, eventPatternProblem, type EventPattern } from './event-pattern';
export {
  LocalEventBridge,
  type EventRule,
  type LocalEventBridgeOptions,
  type PutEvent,
  type RuleTarget,
} from './local-eventbridge';
