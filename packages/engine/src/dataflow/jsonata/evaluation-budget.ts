/**
 * The budget one JSONata evaluation runs under: time, depth and the size of what one step builds, so that
 * no expression a workflow holds can freeze or exhaust the engine (issue 29). JSONata 2.x awaits a hook on
 * entry to and exit from every step it evaluates (`jsonata.__evaluate_entry` / `__evaluate_exit`, how its
 * own test suite time-boxes expressions); {@link EvaluationBudget.enter} and {@link EvaluationBudget.exit}
 * are those hooks' work. Entry also hands the thread back to the event loop (a macrotask) once a slice of
 * evaluation has run, so the API, the console and other runs keep answering while an expression runs.
 *
 * AWS documents no budget for Step Functions' JSONata; the defaults are chosen so that no real workflow
 * meets them, from the limits it does document: 256 KiB for a state's input and output (Step Functions
 * quotas), so a real expression works on at most that much data.
 */
/** The bounds of the evaluation of one field: its `{% %}` strings, evaluated one after the other. */
export interface ExpressionLimits {
  /**
   * Longest a field's evaluation may run, in wall-clock milliseconds (time it yields to other work included).
   * An expression over a 256 KiB payload takes milliseconds; 100,000 items mapped through a function
   * about 1.6 s on a loaded 2-core box.
   * @default 10_000
   */
  readonly timeoutMillis: number;
  /**
   * Most steps in flight at once: nested calls (a recursion holds three per level) and the items of an
   * array constructor, which JSONata evaluates in parallel. Bounds the memory an expression can hold
   * (non-tail recursion 100,000 levels deep took 670 MB); 20,000 admits an array literal of 20,000 items
   * and recursion some 6,600 levels deep (~45 MB).
   * @default 20_000
   */
  readonly maxDepth: number;
  /**
   * Longest string one step may build, in UTF-16 code units: 16 times the 256 KiB a state may pass on,
   * room for any intermediate value a real expression builds. `$pad` and `$join` are refused before
   * they build more; a concatenation is stopped at the step that passed it.
   * @default 4_194_304
   */
  readonly maxStringLength: number;
  /**
   * Most items of an array one step may build: a 256 KiB payload holds at most ~131,000 items.
   * @default 1_000_000
   */
  readonly maxArrayLength: number;
}

/**
 * The engine's side of a state's long evaluations: an evaluation that has run {@link longAfterMillis} is
 * remembered durably until it ends, so that if the engine dies meanwhile (killed because it seemed
 * frozen), the next start fails that state instead of evaluating it again.
 */
export interface EvaluationWatch {
  /** How long an evaluation runs before it counts as long. */
  readonly longAfterMillis: number;
  /** An evaluation has run long: remember it; call what this returns when it ends. */
  long(): () => void;
  /** Why this state must not be evaluated again (the engine stopped during a long evaluation of it), or undefined. */
  interrupted(): string | undefined;
}

/** The limits an engine uses when it is given none (see each field of {@link ExpressionLimits}). */
export const DEFAULT_EXPRESSION_LIMITS: ExpressionLimits = Object.freeze({
  timeoutMillis: 10_000,
  maxDepth: 20_000,
  maxStringLength: 4 * 1024 * 1024,
  maxArrayLength: 1_000_000,
});

/**
 * How long evaluation holds the thread before it lets the event loop turn: short enough that a request
 * waits at most a few slices while ten runs evaluate (the goal is 100 ms at p99), long enough that the
 * turns cost nothing measurable. Process-wide, as the event loop is.
 */
export const EVALUATION_SLICE_MILLIS = 10;

/** Steps between two readings of the clock (a power of two, for a mask): ~0.2 ms of evaluation. */
const CLOCK_EVERY_STEPS = 64;

/** When the event loop last turned for an evaluation, in any run: all evaluations share one slice. */
let lastTurnMillis = 0;

/** The turn every evaluation whose slice is spent waits for, while one is pending. */
let pendingTurn: Promise<void> | undefined;

/**
 * Resolves on the next macrotask, after the I/O the event loop has waiting. Every evaluation waits for the
 * same turn: with one turn each, ten evaluations resumed one after the other in the same check phase and
 * each took a whole slice, so a request waited ten slices (DescribeExecution's p99 was 102 ms).
 */
function nextTurn(): Promise<void> {
  pendingTurn ??= new Promise((resolve) =>
    setImmediate(() => {
      pendingTurn = undefined;
      lastTurnMillis = Date.now();
      resolve();
    }),
  );
  return pendingTurn;
}

/** An expression went past one of its {@link ExpressionLimits}; `limit` names which. */
export class ExpressionBudgetError extends Error {
  override readonly name = 'ExpressionBudgetError';

  constructor(
    readonly limit: keyof ExpressionLimits,
    message: string,
  ) {
    super(`${message} (the engine's expression budget, expressionLimits.${limit})`);
  }
}

/** A state the engine stopped in during a long evaluation is not evaluated again (see {@link EvaluationWatch}). */
export class EvaluationInterruptedError extends Error {
  override readonly name = 'EvaluationInterruptedError';
}

/**
 * A run's first steps are computed inside its StartExecution, so that the start and those steps share one
 * commit. An evaluation there that outlasts its slice is not waited for: the start is committed alone, and
 * the run evaluates the state afterwards, as any other transition (AWS answers StartExecution before a run
 * evaluates anything; a runaway first state held the answer until its budget ran out).
 */
export class EvaluationDeferredError extends Error {
  override readonly name = 'EvaluationDeferredError';

  constructor() {
    super("the evaluation outlasted its slice in the run's first transition: it runs after the start instead");
  }
}

/**
 * The running account of the evaluations of one field (its expressions, one after the other) against
 * its {@link ExpressionLimits}, told to its {@link EvaluationWatch} when they run long.
 */
export class EvaluationBudget {
  private steps = 0;
  private readonly startMillis: number;
  private readonly deadlineMillis: number;
  /** Set while a long evaluation is remembered: forgets it. */
  private forgetLong?: () => void;

  /**
   * @param deferrable whether an evaluation that outlasts its slice throws {@link EvaluationDeferredError}
   *   instead of waiting for a turn (a run's first transition, computed inside its start).
   */
  constructor(
    private readonly limits: ExpressionLimits,
    private readonly watch?: EvaluationWatch,
    private readonly deferrable = false,
  ) {
    this.startMillis = Date.now();
    this.deadlineMillis = this.startMillis + limits.timeoutMillis;
  }

  /**
   * Before an evaluation: throws when the state must not be evaluated again, or when the expression
   * holds a range of `rangeItems` (its literal bounds say so) past the array budget.
   */
  begin(rangeItems = 0): void {
    const why = this.watch?.interrupted();
    if (why !== undefined) throw new EvaluationInterruptedError(why);
    this.checkArray(rangeItems);
  }

  /** After an evaluation, however it ended: a long one is forgotten. */
  end(): void {
    this.forgetLong?.();
    this.forgetLong = undefined;
  }

  /**
   * On entry to a step, `depth` steps in flight: throws past the depth or time budget; returns a promise
   * when the slice is spent (the caller awaits it, and the event loop turns), else nothing.
   */
  enter(depth: number): Promise<void> | undefined {
    if (depth > this.limits.maxDepth) {
      throw new ExpressionBudgetError('maxDepth', `it nested more than ${this.limits.maxDepth} steps deep`);
    }
    if (++this.steps % CLOCK_EVERY_STEPS !== 0) return undefined;
    const now = Date.now();
    if (now > this.deadlineMillis) {
      throw new ExpressionBudgetError('timeoutMillis', `it ran for more than ${this.limits.timeoutMillis} ms`);
    }
    if (this.watch && this.forgetLong === undefined && now - this.startMillis >= this.watch.longAfterMillis)
      this.forgetLong = this.watch.long();
    if (now - Math.max(lastTurnMillis, this.startMillis) < EVALUATION_SLICE_MILLIS) return undefined;
    if (this.deferrable) throw new EvaluationDeferredError();
    return nextTurn();
  }

  /** On exit from a step with its `result`: throws when the step built a string or array past its budget. */
  exit(result: unknown): void {
    if (typeof result === 'string') this.checkString(result.length);
    else if (Array.isArray(result)) this.checkArray(result.length);
  }

  /** Throws when an array of `length` items passes the budget. */
  private checkArray(length: number): void {
    if (length > this.limits.maxArrayLength) {
      throw new ExpressionBudgetError(
        'maxArrayLength',
        `it built or asked for an array of ${length} items, more than ${this.limits.maxArrayLength}`,
      );
    }
  }

  /** Throws when a string of `length` code units passes the budget (checked before a function builds it, too). */
  checkString(length: number): void {
    if (length > this.limits.maxStringLength) {
      throw new ExpressionBudgetError(
        'maxStringLength',
        `it built or asked for a string of ${length} characters, more than ${this.limits.maxStringLength}`,
      );
    }
  }
}
