import { type ExecutionHeader, keepRecent } from '../store';

/** How many running executions' headers are kept (the runs in flight; a miss only reads the row). */
export const RUN_HEADERS_KEPT = 256;

/**
 * The headers of running executions as the executor last wrote them, so that the next transition of a run
 * need not read its row again (a read with an index seek per place its history may be).
 *
 * A header kept here may be out of date, and that is safe by construction: what a transition writes is
 * checked against the row inside its commit (the run still RUNNING, each frame at the revision it was read
 * at; a transition whose contents name predicted event ids is computed again from a fresh read when other
 * batches moved them). What is not checked there — the run's redrive count and time, its start — only
 * changes when a run is redriven or started anew, and both replace or forget the header
 * ({@link RunHeaders.forget} on a redrive's resume, {@link RunHeaders.remember} at a start).
 */
export class RunHeaders {
  private readonly headers = new Map<string, ExecutionHeader>();

  /** The header kept for `executionArn`, if any. */
  get(executionArn: string): ExecutionHeader | undefined {
    return this.headers.get(executionArn);
  }

  /** Keeps `header` (the oldest kept header goes past {@link RUN_HEADERS_KEPT}). */
  remember(header: ExecutionHeader): void {
    keepRecent(this.headers, header.arn, header, RUN_HEADERS_KEPT);
  }

  /**
   * A transition of the run computed from `header` wrote `events` events: the run's next transition
   * predicts its event ids after them (the kept count adds up every batch of the run written here). The
   * kept header's count moves on in place: a header handed out by {@link get} is read for its count only
   * when a transition's batch is made.
   */
  written(header: ExecutionHeader, events: number): void {
    const kept = this.headers.get(header.arn);
    if (!kept) {
      this.remember({ ...header, event_count: header.event_count + events });
      return;
    }
    kept.event_count += events;
    this.remember(kept);
  }

  /** Forgets a run's header: it closed, or is redriven (its redrive count and time change). */
  forget(executionArn?: string): void {
    if (executionArn === undefined) this.headers.clear();
    else this.headers.delete(executionArn);
  }
}

/** The columns of an {@link ExecutionHeader} taken from a fuller row (a new run's, which holds its input too). */
export function headerOf(row: ExecutionHeader): ExecutionHeader {
  const {
    arn,
    seq,
    machine_arn,
    machine_name,
    name,
    version_arn,
    alias_arn,
    role_arn,
    definition_hash,
    status,
    start_ms,
    redrive_count,
    redrive_ms,
    event_count,
  } = row;
  return {
    arn,
    seq,
    machine_arn,
    machine_name,
    name,
    version_arn,
    alias_arn,
    role_arn,
    definition_hash,
    status,
    start_ms,
    redrive_count,
    redrive_ms,
    event_count,
  };
}
