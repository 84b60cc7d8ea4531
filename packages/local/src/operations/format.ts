/** A duration in milliseconds as people read it: `850ms`, `4.2s`, `3m 05s`, `2h 01m`, `5d 02h`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)}s`;
  const totalSeconds = Math.floor(s);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (totalSeconds < 3600) return `${Math.floor(totalSeconds / 60)}m ${pad(totalSeconds % 60)}s`;
  if (totalSeconds < 86_400)
    return `${Math.floor(totalSeconds / 3600)}h ${pad(Math.floor((totalSeconds % 3600) / 60))}m`;
  return `${Math.floor(totalSeconds / 86_400)}d ${pad(Math.floor((totalSeconds % 86_400) / 3600))}h`;
}

/** A timestamp as `YYYY-MM-DD HH:MM:SS` UTC (stable across machines, sortable). */
export function formatTime(date: Date | undefined): string {
  if (!date) return '-';
  return date
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

/**
 * The time from `start` to `end` (both the engine's: event timestamps, or the engine's now), or
 * `unknown` when either is missing — never the reader's own clock against the engine's timestamps.
 */
export function formatElapsed(start: Date | undefined, end: Date | number | undefined, unknown = '-'): string {
  const endMillis = end instanceof Date ? end.getTime() : end;
  return start === undefined || endMillis === undefined ? unknown : formatDuration(endMillis - start.getTime());
}
