import { html, type SafeHtml } from './html';
import type { AslGraphDefinition, StateStatus } from '../../lib/operations';

/**
 * Draws a state machine definition as an SVG graph, server-side, with no layout library: states are
 * placed in layers by longest path from `StartAt` (back edges, such as an agent loop's, are set aside
 * first so the layering terminates), ordered within a layer by the mean position of their parents, and
 * coloured by their {@link StateStatus}. Parallel and Map states are drawn as one node.
 */

/** The parts of an ASL definition the graph reads (the CLI reads the same). */
export type AslDefinition = AslGraphDefinition;
type AslState = AslGraphDefinition['States'][string];

/** A node of the laid-out graph. */
export interface GraphNode {
  readonly id: string;
  readonly type: string;
  readonly layer: number;
  readonly x: number;
  readonly y: number;
}

/** An edge of the laid-out graph; `back` edges point to an earlier layer (loops). */
export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: 'next' | 'choice' | 'default' | 'catch';
  readonly back: boolean;
}

/** Width of a state's box, in SVG units. */
export const GRAPH_NODE_WIDTH = 170;
/** Height of a state's box, in SVG units. */
export const GRAPH_NODE_HEIGHT = 34;
const LAYER_GAP = 58;
const COLUMN_GAP = 18;
const MARGIN = 24;
const START = '(start)';
const END = '(end)';

function edgesOf(name: string, state: AslState): { to: string; kind: GraphEdge['kind'] }[] {
  const out: { to: string; kind: GraphEdge['kind'] }[] = [];
  if (state.Next) out.push({ to: state.Next, kind: 'next' });
  for (const choice of state.Choices ?? []) if (choice.Next) out.push({ to: choice.Next, kind: 'choice' });
  if (state.Default) out.push({ to: state.Default, kind: 'default' });
  for (const c of state.Catch ?? []) if (c.Next) out.push({ to: c.Next, kind: 'catch' });
  if (state.End || state.Type === 'Succeed' || state.Type === 'Fail') out.push({ to: END, kind: 'next' });
  // Several edges to the same target (two Choices to one state) are drawn once.
  return out.filter((e, i) => out.findIndex((o) => o.to === e.to) === i && e.to !== name);
}

/** Lays out the graph: nodes with positions, edges marked forward or back. */
export function layoutStateGraph(definition: AslDefinition): { nodes: GraphNode[]; edges: GraphEdge[]; width: number; height: number } {
  const states = definition.States;
  const names = [START, ...Object.keys(states), END];
  const successors = new Map<string, { to: string; kind: GraphEdge['kind'] }[]>();
  successors.set(START, [{ to: definition.StartAt, kind: 'next' }]);
  successors.set(END, []);
  for (const [name, state] of Object.entries(states)) {
    successors.set(name, edgesOf(name, state).filter((e) => e.to === END || e.to in states));
  }

  // Depth-first from the start: an edge to a state still on the stack closes a loop (a back edge).
  const edges: GraphEdge[] = [];
  const visitState = new Map<string, 'active' | 'done'>();
  const order: string[] = [];
  const visit = (name: string) => {
    visitState.set(name, 'active');
    order.push(name);
    for (const e of successors.get(name) ?? []) {
      const seen = visitState.get(e.to);
      edges.push({ from: name, to: e.to, kind: e.kind, back: seen === 'active' });
      if (!seen) visit(e.to);
    }
    visitState.set(name, 'done');
  };
  visit(START);
  for (const name of names) if (!visitState.has(name)) visit(name); // unreachable states still show

  // Longest-path layering over forward edges, in topological order.
  const layer = new Map<string, number>(names.map((n) => [n, 0]));
  const indegree = new Map<string, number>(names.map((n) => [n, 0]));
  for (const e of edges) if (!e.back) indegree.set(e.to, (indegree.get(e.to) ?? 0) + 1);
  const ready = names.filter((n) => indegree.get(n) === 0);
  while (ready.length > 0) {
    const name = ready.shift()!;
    for (const e of edges) {
      if (e.from !== name || e.back) continue;
      layer.set(e.to, Math.max(layer.get(e.to)!, layer.get(name)! + 1));
      indegree.set(e.to, indegree.get(e.to)! - 1);
      if (indegree.get(e.to) === 0) ready.push(e.to);
    }
  }
  // The end sits alone below everything.
  const deepest = Math.max(0, ...names.filter((n) => n !== END).map((n) => layer.get(n)!));
  layer.set(END, deepest + 1);

  // Order within layers: first by discovery, then by the mean column of forward parents.
  const layers: string[][] = [];
  for (const name of order) (layers[layer.get(name)!] ??= []).push(name);
  const column = new Map<string, number>();
  layers.forEach((row) => row.forEach((n, i) => column.set(n, i)));
  for (let l = 1; l < layers.length; l++) {
    const row = layers[l] ?? [];
    const weight = (n: string) => {
      const parents = edges.filter((e) => e.to === n && !e.back).map((e) => column.get(e.from)!);
      return parents.length ? parents.reduce((a, b) => a + b, 0) / parents.length : column.get(n)!;
    };
    row.sort((a, b) => weight(a) - weight(b));
    row.forEach((n, i) => column.set(n, i));
  }

  const widest = Math.max(1, ...layers.map((row) => row?.length ?? 0));
  // Loops are drawn round the right-hand side: room for them only when there are any.
  const loopRoom = edges.some((e) => e.back) ? 40 : 0;
  const width = MARGIN * 2 + widest * GRAPH_NODE_WIDTH + (widest - 1) * COLUMN_GAP + loopRoom;
  const nodes: GraphNode[] = [];
  layers.forEach((row, l) => {
    if (!row) return;
    const rowWidth = row.length * GRAPH_NODE_WIDTH + (row.length - 1) * COLUMN_GAP;
    const left = (width - loopRoom - rowWidth) / 2;
    row.forEach((name, i) =>
      nodes.push({
        id: name,
        type: name === START || name === END ? 'Terminal' : (states[name]?.Type ?? '?'),
        layer: l,
        x: left + i * (GRAPH_NODE_WIDTH + COLUMN_GAP),
        y: MARGIN + l * (GRAPH_NODE_HEIGHT + LAYER_GAP),
      }),
    );
  });
  const height = MARGIN * 2 + layers.length * GRAPH_NODE_HEIGHT + (layers.length - 1) * LAYER_GAP;
  return { nodes, edges, width, height };
}

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The graph as an `<svg>` element. Each state is a `<g class="state status-<status>" data-state="<name>"
 * data-status="<status>">` (tests and the page's CSS read these), with its type and status in a tooltip.
 */
export function renderStateGraph(definition: AslDefinition, statuses: ReadonlyMap<string, StateStatus> = new Map()): SafeHtml {
  const { nodes, edges, width, height } = layoutStateGraph(definition);
  const at = new Map(nodes.map((n) => [n.id, n]));
  const edgeMarkup = edges.map((e) => {
    const a = at.get(e.from)!;
    const b = at.get(e.to)!;
    const x1 = a.x + GRAPH_NODE_WIDTH / 2;
    const x2 = b.x + GRAPH_NODE_WIDTH / 2;
    let d: string;
    if (e.back) {
      // Loops go round the right-hand side.
      const side = Math.max(a.x, b.x) + GRAPH_NODE_WIDTH + 18;
      const y1 = a.y + GRAPH_NODE_HEIGHT / 2;
      const y2 = b.y + GRAPH_NODE_HEIGHT / 2;
      d = `M${a.x + GRAPH_NODE_WIDTH},${y1} C${side},${y1} ${side},${y2} ${b.x + GRAPH_NODE_WIDTH + 4},${y2}`;
    } else if (b.layer - a.layer > 1 && e.to !== END) {
      // A forward edge that skips layers would cross the states between: it goes round the left-hand side.
      const side = Math.min(a.x, b.x) - 16;
      const y1 = a.y + GRAPH_NODE_HEIGHT / 2;
      const y2 = b.y + GRAPH_NODE_HEIGHT / 2;
      d = `M${a.x},${y1} C${side},${y1} ${side},${y2} ${b.x - 4},${y2}`;
    } else {
      const y1 = a.y + GRAPH_NODE_HEIGHT;
      const y2 = b.y - 4;
      // Into the end from afar: keep to the source's column until just above the end, clear of the states between.
      const bend = b.layer - a.layer > 1 ? y2 - LAYER_GAP / 2 : (y1 + y2) / 2;
      d = `M${x1},${y1} C${x1},${bend} ${x2},${bend} ${x2},${y2}`;
    }
    return html`<path class="edge edge-${e.kind}${e.back ? ' edge-back' : ''}" d="${d}" marker-end="url(#arrow)"/>`;
  });
  const nodeMarkup = nodes.map((n) => {
    if (n.type === 'Terminal') {
      const cx = n.x + GRAPH_NODE_WIDTH / 2;
      const cy = n.y + GRAPH_NODE_HEIGHT / 2;
      return html`<g class="terminal"><circle cx="${cx}" cy="${cy}" r="10"/><text x="${cx + 16}" y="${cy + 4}">${n.id === START ? 'start' : 'end'}</text></g>`;
    }
    const status = statuses.get(n.id) ?? 'not-run';
    return html`<g class="state status-${status}" data-state="${n.id}" data-status="${status}"><title>${n.id} (${n.type}): ${status}</title><rect x="${n.x}" y="${n.y}" width="${GRAPH_NODE_WIDTH}" height="${GRAPH_NODE_HEIGHT}" rx="6"/><text x="${n.x + GRAPH_NODE_WIDTH / 2}" y="${n.y + 15}" class="name">${truncate(n.id, 25)}</text><text x="${n.x + GRAPH_NODE_WIDTH / 2}" y="${n.y + 28}" class="type">${n.type}</text></g>`;
  });
  return html`<svg class="state-graph" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="state machine graph"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>${edgeMarkup}${nodeMarkup}</svg>`;
}
