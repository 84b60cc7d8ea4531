export { matchesEventPattern, eventPatternProblem, type EventPattern } from './event-pattern';
