/**
 * What users pick instead: LangGraph.js with its SQLite checkpointer, on the same workload — seven nodes in
 * a line, each returning the same ~200-byte result. Two settings:
 * - `parity`: durable as our engine is — every checkpoint written before the next step starts
 *   (`durability: "sync"`) and every commit fsync'd (the saver opens WAL with SQLite's default
 *   `synchronous=NORMAL`, which does not fsync a commit; we set FULL);
 * - `default`: what LangGraph's users run — its default durability (`"async"`: a checkpoint is written while
 *   the next step runs) on the saver's own WAL `synchronous=NORMAL`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureWorkload, peakRssBytes, STEPS, stepResult, type WorkloadFigures } from './workload';

/** Which LangGraph settings to measure (see the module's comment). */
export type LangGraphDurability = 'parity' | 'default';

export async function measureLangGraph(durability: LangGraphDurability): Promise<WorkloadFigures> {
  const { Annotation, END, START, StateGraph } = await import('@langchain/langgraph');
  const { SqliteSaver } = await import('@langchain/langgraph-checkpoint-sqlite');
  const dir = await mkdtemp(join(tmpdir(), 'autosave-bench-langgraph-'));
  try {
    const State = Annotation.Root({ runId: Annotation<string>(), last: Annotation<Record<string, unknown>>() });
    // The builder's types track every node name added; a loop of seven is typed loosely on purpose.
    let graph = new StateGraph(State) as unknown as {
      addNode(name: string, fn: (s: unknown) => Promise<unknown>): typeof graph;
      addEdge(from: string, to: string): typeof graph;
      compile(options: { checkpointer: unknown }): { invoke(input: unknown, config: unknown): Promise<unknown> };
    };
    for (let s = 1; s <= STEPS; s += 1) graph = graph.addNode(`Step${s}`, async () => ({ last: stepResult(s) }));
    graph = graph.addEdge(START, 'Step1');
    for (let s = 1; s < STEPS; s += 1) graph = graph.addEdge(`Step${s}`, `Step${s + 1}`);
    graph = graph.addEdge(`Step${STEPS}`, END);
    const saver = SqliteSaver.fromConnString(join(dir, 'langgraph.sqlite'));
    if (durability === 'parity')
      (saver as unknown as { db: { pragma(p: string): unknown } }).db.pragma('synchronous = FULL');
    const app = graph.compile({ checkpointer: saver });
    const mode = durability === 'parity' ? 'sync' : 'async';
    const figures = await measureWorkload((r) =>
      app.invoke({ runId: `run-${r}` }, { configurable: { thread_id: `run-${r}` }, durability: mode }),
    );
    return {
      ...figures,
      peakRssBytes: peakRssBytes(),
      notes: [
        durability === 'parity'
          ? 'durability "sync", SQLite WAL synchronous=FULL; after a crash the application must find and resume its threads itself'
          : 'its default: durability "async", SQLite WAL synchronous=NORMAL (a commit is not fsync\'d; a power loss may drop the last checkpoints)',
      ],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
