/**
 * The seam between the executor (which moves executions from state to state, durably) and the data
 * flow of a single state (how a state's input becomes its arguments, its result becomes its output,
 * and its Choice rules pick the next state) in either query language. Everything behind this seam is
 * pure: no I/O, no clock reads (the executor passes `now` where a rule needs it).
 */

/** The parsed ASL of one state, as written in the definition (fields stay as ASL names). */
export type StateDefinition = Readonly<Record<string, unknown>> & { readonly Type: string };

import type { EvaluationWatch, ExpressionLimits } from './jsonata/evaluation-budget';

export type QueryLanguage = 'JSONata' | 'JSONPath';

/** What a state's expressions can see. */
export interface EvaluationScope {
  /** The state's raw input (`$states.input`, or `$` in JSONPath). */
  readonly input: unknown;
  /** The context object (`$states.context`, `$$` in JSONPath): Execution, State, StateMachine, Task, Map. */
  readonly context: Readonly<Record<string, unknown>>;
  /** `$states.result` (after the work of a Task/Map/Parallel) — undefined before. */
  readonly result?: unknown;
  /** `$states.errorOutput` (in a Catch) — `{ Error, Cause }`. */
  readonly errorOutput?: unknown;
  /** Workflow variables in scope (JSONata `$name`, JSONPath `$name`). */
  readonly variables: Readonly<Record<string, unknown>>;
  /**
   * The engine clock's time (epoch ms). When set, JSONata's `$now()`/`$millis()` return it, so runs on
   * a virtual clock see virtual time. Unset: the wall clock.
   */
  readonly nowMillis?: number;
  /** The budget of each JSONata evaluation. @default DEFAULT_EXPRESSION_LIMITS */
  readonly expressionLimits?: ExpressionLimits;
  /** Who is told of an evaluation that runs long, and may forbid one. @default nobody (TestState, Express runs) */
  readonly evaluationWatch?: EvaluationWatch;
  /**
   * A run's first transition, computed inside its StartExecution: a JSONata evaluation that outlasts its
   * slice throws `EvaluationDeferredError` instead of holding the start's answer. @default false
   */
  readonly deferLongEvaluation?: boolean;
}

/** A failure raised while evaluating a state's data flow; `name` is the ASL error name. */
export interface StatesErrorLike extends Error {
  /** e.g. `States.QueryEvaluationError`, `States.Runtime`, `States.NoChoiceMatched`, `States.IntrinsicFailure`. */
  readonly name: string;
}

/** A Choice decision. */
export interface ChoiceDecision {
  readonly next: string;
  /** Variables assigned by the matched rule (JSONata rule-level `Assign`) or the state. */
  readonly assign: Readonly<Record<string, unknown>>;
  /** Output of the Choice state (JSONata rule- or state-level `Output`; default: the input). */
  readonly output: unknown;
}

/** A Map state's concurrency and failure tolerance. */
export interface MapLimits {
  /** Most iterations in flight at once; 0 means no limit (the default). */
  readonly maxConcurrency: number;
  readonly toleratedFailureCount?: number;
  /** 0-100. */
  readonly toleratedFailurePercentage?: number;
}

/** A Distributed Map's `ItemReader` with its fields evaluated: where its items come from and how to read them. */
export interface MapItemReaderSpec {
  /** The reader's `Resource` (`arn:aws:states:::s3:getObject`, `arn:aws:states:::s3:listObjectsV2`). */
  readonly resource: string;
  /** Its `Parameters` (JSONPath) or `Arguments` (JSONata), evaluated: `Bucket`, `Key`, `Prefix`... */
  readonly args: Readonly<Record<string, unknown>>;
  /** `ReaderConfig.InputType` (`JSON`, `JSONL`, `CSV`, `MANIFEST`); absent for `listObjectsV2`. */
  readonly inputType?: string;
  /** `ReaderConfig.CSVHeaderLocation`: `FIRST_ROW` or `GIVEN`. */
  readonly csvHeaderLocation?: string;
  /** `ReaderConfig.CSVHeaders` (with `GIVEN`). */
  readonly csvHeaders?: readonly unknown[];
  /** `ReaderConfig.CSVDelimiter` (`COMMA`, `PIPE`, `SEMICOLON`, `SPACE`, `TAB`). */
  readonly csvDelimiter?: string;
  /**
   * `MaxItems` (literal or JSONata) or the integer `MaxItemsPath` selects; undefined or 0: every item.
   * Not checked for sign here: AWS fails the Map Run on a negative one, after it started.
   */
  readonly maxItems?: number;
}

/** A Map's `ItemBatcher` with its fields evaluated. */
export interface MapItemBatcherSpec {
  /** `MaxItemsPerBatch(Path)`; undefined: no count limit. */
  readonly maxItemsPerBatch?: number;
  /** `MaxInputBytesPerBatch(Path)`; undefined: only the service's payload limit. */
  readonly maxInputBytesPerBatch?: number;
  /** `BatchInput`, evaluated; undefined when absent. */
  readonly batchInput?: unknown;
}

/** A Distributed Map's `ResultWriter` with its fields evaluated. */
export interface MapResultWriterSpec {
  /** `arn:aws:states:::s3:putObject`; absent with only a `WriterConfig`. */
  readonly resource?: string;
  /** `Parameters`/`Arguments` evaluated: `Bucket`, `Prefix`. */
  readonly args: Readonly<Record<string, unknown>>;
  /** `WriterConfig.Transformation` / `OutputType` as written. */
  readonly transformation?: string;
  readonly outputType?: string;
}

/** One state's data flow in one query language. All methods throw a {@link StatesErrorLike}. */
export interface StateDataFlow {
  /**
   * The value a Task/Parallel/Map/Pass works on. JSONata: `Arguments` evaluated (default: the input).
   * JSONPath: `InputPath` then `Parameters` (with `.$` paths and intrinsic functions).
   * For Pass in JSONPath this also applies `Result`.
   */
  effectiveInput(state: StateDefinition, scope: EvaluationScope): Promise<unknown>;
  /**
   * The state's output once `scope.result` is known. JSONata: `Output` (default: the result; for Pass and
   * Choice/Wait the input). JSONPath: `ResultSelector`, `ResultPath`, `OutputPath`.
   */
  output(state: StateDefinition, scope: EvaluationScope): Promise<unknown>;
  /** New variable values from the state's `Assign` (evaluated with `$states.result` visible). */
  assign(state: StateDefinition, scope: EvaluationScope): Promise<Record<string, unknown>>;
  /** The output and assignments of a Catch clause (`scope.errorOutput` is set). */
  catchOutput(
    catcher: Readonly<Record<string, unknown>>,
    scope: EvaluationScope,
  ): Promise<{ output: unknown; assign: Record<string, unknown> }>;
  /** The next state of a Choice state; throws `States.NoChoiceMatched` when no rule and no Default. */
  choose(state: StateDefinition, scope: EvaluationScope): Promise<ChoiceDecision>;
  /** When a Wait state ends (epoch ms): Seconds/Timestamp (JSONata expressions), SecondsPath/TimestampPath. */
  waitUntil(state: StateDefinition, scope: EvaluationScope, nowMillis: number): Promise<number>;
  /** The items of a Map state (JSONata `Items`; JSONPath `ItemsPath`; default the effective input). */
  mapItems(state: StateDefinition, scope: EvaluationScope): Promise<unknown[]>;
  /** One Map iteration's input (`ItemSelector`/`Parameters`; default the item). `scope.context.Map.Item` is set. */
  mapItemInput(state: StateDefinition, scope: EvaluationScope): Promise<unknown>;
  /**
   * A Map state's limits: `MaxConcurrency` (0 = no limit), `ToleratedFailureCount`,
   * `ToleratedFailurePercentage` — literals, JSONata expressions, or their `*Path` fields in JSONPath.
   */
  mapLimits(state: StateDefinition, scope: EvaluationScope): Promise<MapLimits>;
  /** A Distributed Map's `ItemReader` (undefined when it has none): its arguments and `ReaderConfig` evaluated. */
  mapItemReader(state: StateDefinition, scope: EvaluationScope): Promise<MapItemReaderSpec | undefined>;
  /** A Map's `ItemBatcher` (undefined when it has none): limits and `BatchInput` evaluated. */
  mapItemBatcher(state: StateDefinition, scope: EvaluationScope): Promise<MapItemBatcherSpec | undefined>;
  /** A Distributed Map's `ResultWriter` (undefined when it has none): its arguments evaluated. */
  mapResultWriter(state: StateDefinition, scope: EvaluationScope): Promise<MapResultWriterSpec | undefined>;
  /** A Task's `TimeoutSeconds`/`HeartbeatSeconds` (numbers, JSONata expressions or `*Path` fields); undefined when absent. */
  taskTimeouts(
    state: StateDefinition,
    scope: EvaluationScope,
  ): Promise<{ timeoutSeconds?: number; heartbeatSeconds?: number }>;
  /** A Fail state's `Error` and `Cause` (literal, JSONata, or ErrorPath/CausePath). */
  failure(state: StateDefinition, scope: EvaluationScope): Promise<{ error?: string; cause?: string }>;
}
