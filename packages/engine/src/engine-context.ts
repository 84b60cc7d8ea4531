import type { Clock } from '@autosave/workflow/config';
import type { EngineStore } from './store';
import type { ArnScope } from './arns';
import type { DefinitionCache } from './definition';
import type { MockedRuns } from './mocks';
import type { ExpressionLimits } from './dataflow';
import type { LongEvaluations } from './executor/long-evaluations';

/** What every operation and the executor share. */
export interface EngineContext {
  readonly store: EngineStore;
  readonly clock: Clock;
  readonly scope: ArnScope;
  /** Uniform random numbers in [0, 1): alias routing and retry jitter. */
  readonly random: () => number;
  /** The prepared definitions, by stored hash: the only model of a definition the executor reads. */
  readonly definitions: DefinitionCache;
  /** The runs of this store started under a mock test case (`<arn>#<TestCase>`). */
  readonly mocks: MockedRuns;
  /** The budget of each JSONata evaluation. @default DEFAULT_EXPRESSION_LIMITS */
  readonly expressionLimits?: ExpressionLimits;
  /** Where long evaluations are written down. @default nowhere (an in-memory store) */
  readonly longEvaluations?: LongEvaluations;
}
