/**
 * Where the CLI writes. Commands never call `console.log` directly: they write through the current
 * {@link Terminal}, which tests swap for a buffer ({@link captureTerminal}) to assert on output without
 * spawning a process per case.
 */
export interface Terminal {
  /** Writes text to standard output as is (no newline added). */
  write(text: string): void;
  /** Writes one line to standard output. */
  line(text?: string): void;
  /** Writes one line to standard error. */
  error(text: string): void;
  /** Whether standard output is an interactive terminal (progress lines redraw in place only then). */
  readonly interactive: boolean;
}

const processTerminal: Terminal = {
  write: (text) => void process.stdout.write(text),
  line: (text = '') => void process.stdout.write(`${text}\n`),
  error: (text) => void process.stderr.write(`${text}\n`),
  get interactive() {
    return Boolean(process.stdout.isTTY);
  },
};

let current: Terminal = processTerminal;

/** The terminal commands write to. */
export function terminal(): Terminal {
  return current;
}

/** What a captured terminal received. */
export interface CapturedOutput {
  stdout: string;
  stderr: string;
}

/**
 * Sends all CLI output to memory until `release()` is called. For tests: `const out = captureTerminal();
 * await main([...]); out.release(); expect(out.stdout)...`.
 */
export function captureTerminal(): CapturedOutput & { release(): void } {
  const captured = {
    stdout: '',
    stderr: '',
    release: () => {
      current = processTerminal;
    },
  };
  current = {
    write: (text) => void (captured.stdout += text),
    line: (text = '') => void (captured.stdout += `${text}\n`),
    error: (text) => void (captured.stderr += `${text}\n`),
    interactive: false,
  };
  return captured;
}

/** Prints a value as pretty JSON (the `--json` form of every read command). Dates become ISO strings. */
export function printJson(value: unknown): void {
  terminal().line(JSON.stringify(value, (_k, v) => (v instanceof Date ? v.toISOString() : v), 2));
}

/** Prints rows as an aligned table with a header; `(none)` when there are no rows. */
export function printTable(headers: readonly string[], rows: readonly (readonly string[])[]): void {
  if (rows.length === 0) {
    terminal().line('(none)');
    return;
  }
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const format = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  terminal().line(format(headers));
  for (const row of rows) terminal().line(format(row));
}

/** A duration in milliseconds as people read it: `850ms`, `4.2s`, `3m 05s`, `2h 01m`, `5d 02h`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)}s`;
  const totalSeconds = Math.floor(s);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (totalSeconds < 3600) return `${Math.floor(totalSeconds / 60)}m ${pad(totalSeconds % 60)}s`;
  if (totalSeconds < 86_400) return `${Math.floor(totalSeconds / 3600)}h ${pad(Math.floor((totalSeconds % 3600) / 60))}m`;
  return `${Math.floor(totalSeconds / 86_400)}d ${pad(Math.floor((totalSeconds % 86_400) / 3600))}h`;
}

/** A timestamp as `YYYY-MM-DD HH:MM:SS` UTC (stable across machines, sortable). */
export function formatTime(date: Date | undefined): string {
  if (!date) return '-';
  return date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
