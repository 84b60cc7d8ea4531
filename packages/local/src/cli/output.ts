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
