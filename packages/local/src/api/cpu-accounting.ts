/**
 * CPU accounting of the API path, for the benchmark (`AUTOSAVE_CPU_ACCOUNTING=1`, off otherwise): the
 * process's CPU (`process.cpuUsage`: every thread of the engine process, microseconds) and, per operation
 * (`X-Amz-Target`), the CPU spent from the request's arrival to its answer's last byte. A request is
 * charged to its operation only when it was the one request in flight from start to end ("alone"):
 * otherwise the CPU of the others, and of runs stepping meanwhile, would be charged to it. What no request
 * is charged with (HTTP parsing before the request event, the runs' own steps, the commits) is the
 * difference between the process's CPU and the operations'. Beside them, the collector's pauses of the
 * engine's thread, by kind, from V8's `gc` performance entries.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants, PerformanceObserver } from 'node:perf_hooks';

/** The route that answers the figures as JSON (`GET`). */
export const CPU_ACCOUNTING_ROUTE = '/_autosave/cpu';
/** The environment variable that turns the accounting on. */
export const CPU_ACCOUNTING_ENV = 'AUTOSAVE_CPU_ACCOUNTING';

/** One operation's figures. */
export interface OperationCpu {
  /** Every request of the operation. */
  calls: number;
  /** Requests that were alone in flight, whose CPU is in {@link cpuMicros}. */
  aloneCalls: number;
  /** CPU of the requests that were alone in flight, microseconds. */
  cpuMicros: number;
}

/** Pauses of one kind of garbage collection. */
export interface GcPauses {
  count: number;
  /** Wall-clock ms the engine's thread was paused (helper threads' work is in the process's CPU only). */
  millis: number;
}

/** The kinds of collection Node reports: a scavenge, a full mark-compact, an incremental marking step, weak callbacks. */
export type GcKind = 'minor' | 'major' | 'incremental' | 'weakcb';

const GC_KINDS: Readonly<Record<number, GcKind>> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/** What {@link CPU_ACCOUNTING_ROUTE} answers. */
export interface CpuAccountingReport {
  /** The process's CPU so far (user + system), microseconds. */
  readonly processCpuMicros: number;
  readonly operations: Record<string, OperationCpu>;
  /** The engine's commit figures: transactions, and the wall-clock ms its thread spent writing and fsyncing them. */
  readonly commits?: { commits: number; flushMillis: number };
  /**
   * The collector's pauses since accounting began, by kind (entries arrive a turn after each collection);
   * absent from an engine built before they were reported.
   */
  readonly gc?: Readonly<Record<GcKind, GcPauses>>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/**
 * Wraps the port's handler: answers {@link CPU_ACCOUNTING_ROUTE} and accounts every other request.
 * `commits` reads the engine's commit figures when asked (the engine is made after the port listens).
 */
export function withCpuAccounting(handler: Handler, commits?: () => { commits: number; flushMillis: number }): Handler {
  const operations: Record<string, OperationCpu> = {};
  /** The requests in flight, each with whether another overlapped it. */
  const inFlight = new Set<{ overlapped: boolean }>();
  const gc = accountGcPauses();
  return (req, res) => {
    if (req.method === 'GET' && req.url === CPU_ACCOUNTING_ROUTE) {
      req.resume();
      const report: CpuAccountingReport = {
        processCpuMicros: cpuMicros(),
        operations,
        ...(commits ? { commits: commits() } : {}),
        gc,
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(report));
      return;
    }
    const target = req.headers['x-amz-target'];
    const operation = typeof target === 'string' ? target.slice(target.lastIndexOf('.') + 1) : `${req.method} other`;
    const entry = { overlapped: inFlight.size > 0 };
    for (const other of inFlight) other.overlapped = true;
    inFlight.add(entry);
    const from = cpuMicros();
    res.once('close', () => {
      const used = cpuMicros() - from;
      inFlight.delete(entry);
      const figures = (operations[operation] ??= { calls: 0, aloneCalls: 0, cpuMicros: 0 });
      figures.calls += 1;
      if (!entry.overlapped) {
        figures.aloneCalls += 1;
        figures.cpuMicros += used;
      }
    });
    return handler(req, res);
  };
}

/** Sums the collector's pauses by kind from now on, for the life of the process. */
function accountGcPauses(): Record<GcKind, GcPauses> {
  const pauses: Record<GcKind, GcPauses> = {
    minor: { count: 0, millis: 0 },
    major: { count: 0, millis: 0 },
    incremental: { count: 0, millis: 0 },
    weakcb: { count: 0, millis: 0 },
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? -1];
      if (!kind) continue;
      pauses[kind].count += 1;
      pauses[kind].millis += entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  return pauses;
}
