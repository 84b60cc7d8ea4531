/**
 * CPU accounting of the API path, for the benchmark (`AUTOSAVE_CPU_ACCOUNTING=1`, off otherwise): the
 * process's CPU (`process.cpuUsage`: every thread of the engine process, microseconds) and, per operation
 * (`X-Amz-Target`), the CPU spent from the request's arrival to its answer's last byte. A request is
 * charged to its operation only when it was the one request in flight from start to end ("alone"):
 * otherwise the CPU of the others, and of runs stepping meanwhile, would be charged to it. What no request
 * is charged with (HTTP parsing before the request event, the runs' own steps, the commits) is the
 * difference between the process's CPU and the operations'.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

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

/** What {@link CPU_ACCOUNTING_ROUTE} answers. */
export interface CpuAccountingReport {
  /** The process's CPU so far (user + system), microseconds. */
  readonly processCpuMicros: number;
  readonly operations: Record<string, OperationCpu>;
  /** The engine's commit figures: transactions, and the wall-clock ms its thread spent writing and fsyncing them. */
  readonly commits?: { commits: number; flushMillis: number };
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
  return (req, res) => {
    if (req.method === 'GET' && req.url === CPU_ACCOUNTING_ROUTE) {
      req.resume();
      const report: CpuAccountingReport = {
        processCpuMicros: cpuMicros(),
        operations,
        ...(commits ? { commits: commits() } : {}),
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
