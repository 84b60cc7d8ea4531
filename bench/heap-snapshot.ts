/**
 * Another process's memory, from outside: its resident set (/proc) and a heap snapshot it writes on a
 * signal (`node --heapsnapshot-signal=SIGUSR2`), broken down by what holds the bytes.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Resident set size of another process, bytes: `VmRSS` now, `VmHWM` its peak. */
export function processRss(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * The resident set of another process by mapping (/proc/<pid>/smaps): the node binary and shared
 * libraries by file, the malloc heap, and anonymous memory (where V8 keeps its heap), largest first.
 */
export function rssBreakdown(pid: number, top = 6): { what: string; bytes: number }[] {
  const sums = new Map<string, number>();
  let current = 'anonymous (V8 heap, malloc arenas)';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const name = mapping[1].trim();
      current =
        name === ''
          ? 'anonymous (V8 heap, malloc arenas)'
          : name.startsWith('/')
            ? name.replace(/^.*\/node_modules\//, '')
            : name;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) sums.set(current, (sums.get(current) ?? 0) + Number(rss[1]) * 1024);
  }
  return [...sums]
    .map(([what, bytes]) => ({ what, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top);
}

/** One line of the heap breakdown. */
export interface HeapShare {
  readonly what: string;
  readonly bytes: number;
  readonly count: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Self sizes of a heap snapshot's nodes, summed by node type and constructor name, largest first. */
export function heapBreakdown(file: string, top = 12): { total: number; shares: HeapShare[] } {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const sums = new Map<string, { bytes: number; count: number }>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]];
    const name = snap.strings[snap.nodes[i + nameAt]];
    const size = snap.nodes[i + sizeAt];
    total += size;
    // Strings and code by kind; objects by constructor.
    const key = type === 'object' || type === 'closure' ? `${type} ${name}` : type;
    const s = sums.get(key) ?? { bytes: 0, count: 0 };
    s.bytes += size;
    s.count += 1;
    sums.set(key, s);
  }
  const shares = [...sums]
    .map(([what, s]) => ({ what, ...s }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top);
  return { total, shares };
}

/** Sends the signal `--heapsnapshot-signal` listens for and resolves with the snapshot file it wrote in `dir`. */
export async function heapSnapshotOf(pid: number, dir: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const written = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    // V8 streams it: whole once the JSON is closed.
    if (written && readFileSync(join(dir, written), 'utf8').trimEnd().endsWith('}')) return join(dir, written);
  }
}

/** The breakdown as lines for the bench's output. */
export function describeHeap(
  breakdown: { total: number; shares: HeapShare[] },
  rss: { what: string; bytes: number }[] = [],
): string {
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  return [
    ...(rss.length > 0
      ? ['resident set by mapping:', ...rss.map((r) => `  ${mb(r.bytes).padStart(9)}  ${r.what}`)]
      : []),
    `JS heap in the snapshot (live objects, after a full GC): ${mb(breakdown.total)}; the largest shares (self size, count):`,
    ...breakdown.shares.map((s) => `  ${mb(s.bytes).padStart(9)}  ${String(s.count).padStart(8)}  ${s.what}`),
  ].join('\n');
}
