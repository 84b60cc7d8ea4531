/**
 * The states whose expressions were evaluating, long, when the engine stopped (issue 29, Deliver 2).
 *
 * A state's evaluation that runs past {@link DEFAULT_LONG_EVALUATION_MILLIS} is written down (one small
 * file in the data directory, written synchronously: it must survive a `kill -9` that comes while the
 * evaluation still runs) and named in the log; the file goes when the evaluation ends. A file the next
 * start finds is an evaluation the engine died in — perhaps killed because it seemed frozen: that state
 * is not evaluated blindly again, it fails (States.QueryEvaluationError, catchable, its cause saying
 * why) the first time the run enters it. The run is resumed as any other, so StopExecution works on it.
 * Real evaluations take milliseconds, so nothing is written on the hot path.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvaluationWatch } from '../dataflow';

/** How long a state's evaluation runs before it is written down: a thousand times a real one. */
export const DEFAULT_LONG_EVALUATION_MILLIS = 1_000;

/** An evaluation written down. */
export interface LongEvaluation {
  readonly executionArn: string;
  readonly state: string;
  /** When it began (epoch ms, wall clock). */
  readonly sinceMillis: number;
}

/** Where an engine writes them down, and what its last start found. */
export class LongEvaluations {
  /** The evaluations the last process died in, by run and state, until the state fails once. */
  private readonly interruptedOnes = new Map<string, LongEvaluation>();
  private written = 0;

  /**
   * @param dir the directory of the marks (in the engine's data directory).
   * @param log where a long evaluation and an interrupted one are named.
   */
  constructor(
    private readonly dir: string,
    private readonly log: (line: string) => void,
    readonly longAfterMillis = DEFAULT_LONG_EVALUATION_MILLIS,
  ) {}

  /** At start: reads what the last process left (its evaluations that never ended), names each, clears them. */
  recover(): readonly LongEvaluation[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      names = [];
    }
    const found: LongEvaluation[] = [];
    for (const name of names) {
      try {
        found.push(JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as LongEvaluation);
      } catch {
        // A mark cut short by the kill it was written for: the run and state are unknown, nothing to hold.
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
    for (const mark of found) {
      this.interruptedOnes.set(key(mark.executionArn, mark.state), mark);
      this.log(
        `autosave engine: run ${mark.executionArn} was evaluating state '${mark.state}' when the engine stopped ` +
          `(for ${this.longAfterMillis} ms or more); the state fails instead of being evaluated again`,
      );
    }
    return found;
  }

  /** The watch of one state's evaluations in one run. */
  watch(executionArn: string, state: string): EvaluationWatch {
    return {
      longAfterMillis: this.longAfterMillis,
      long: () => this.begin({ executionArn, state, sinceMillis: Date.now() - this.longAfterMillis }),
      interrupted: () => {
        const mark = this.interruptedOnes.get(key(executionArn, state));
        if (!mark) return undefined;
        this.interruptedOnes.delete(key(executionArn, state));
        return (
          `the engine stopped while it had been evaluating this state for ${this.longAfterMillis} ms or more ` +
          `(since ${new Date(mark.sinceMillis).toISOString()}); it is failed rather than evaluated again, so that it cannot stop the engine again`
        );
      },
    };
  }

  /** Writes an evaluation down and names it; returns what forgets it. */
  private begin(mark: LongEvaluation): () => void {
    mkdirSync(this.dir, { recursive: true });
    const file = join(this.dir, `${process.pid}-${++this.written}.json`);
    writeFileSync(file, JSON.stringify(mark));
    this.log(
      `autosave engine: run ${mark.executionArn} has been evaluating state '${mark.state}' for ${this.longAfterMillis} ms`,
    );
    return () => {
      try {
        unlinkSync(file);
      } catch {
        // Already gone (a recover() of the same directory): nothing to forget.
      }
    };
  }
}

const key = (executionArn: string, state: string) => `${executionArn}\u0000${state}`;
