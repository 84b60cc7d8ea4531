import { html, type SafeHtml } from './html';
import { choiceRuleText, shortChoiceLabel } from './choice-labels';
import type { AslGraphDefinition, StateStatus } from '../operations';

/**
 * Draws a state machine definition as an SVG graph, server-side, with no layout library: states are
 * placed in layers by longest path from `StartAt` (back edges, such as an agent loop's, are set aside
 * first so the layering terminates), ordered within a layer by the mean position of their parents, and
 * coloured by their {@link StateStatus}. Parallel and Map states are drawn as one node. No edge passes
 * through a state it does not join: an edge between neighbouring layers stays in the gap between them;
 * one that skips layers (or loops back) runs in the gaps and round the side of the layers it passes; a
 * state that ends the run carries its own end marker instead of an edge to one shared end node (which
 * crossed the states between, so `expired` read as leading to `rejected`).
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
  /** The state ends the run (`End`, `Succeed`, `Fail`): drawn with an end marker below it. */
  readonly end: boolean;
}

/** An edge of the laid-out graph; `back` edges point to an earlier layer (loops). */
export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: 'next' | 'choice' | 'default' | 'catch';
  readonly back: boolean;
  /** What takes a Choice this way: each rule's whole text, `Default` for its default (empty for other edges). */
  readonly rules: readonly string[];
}

/** A point of the drawing, in SVG units. */
export type GraphPoint = readonly [x: number, y: number];

/** An edge with its route: the SVG path, and the same route as a polyline (curves sampled) to check it. */
export interface RoutedGraphEdge extends GraphEdge {
  readonly d: string;
  readonly points: readonly GraphPoint[];
}

/** Width of a state's box, in SVG units. */
export const GRAPH_NODE_WIDTH = 170;
/** Height of a state's box, in SVG units. */
export const GRAPH_NODE_HEIGHT = 34;
const LAYER_GAP = 58;
const COLUMN_GAP = 18;
const MARGIN = 24;
/** How far an edge that goes round the side keeps from the states it passes, and from the next such edge. */
const SIDE_CLEARANCE = 16;
const SIDE_SPACING = 8;
/** Room below an ending state for its end marker (a stub and a ringed dot). */
const END_MARKER_STUB = 10;
const END_MARKER_RADIUS = 6;
const END_MARKER_ROOM = END_MARKER_STUB + END_MARKER_RADIUS * 2 + 4;
/** Points sampled along a curved edge for {@link RoutedGraphEdge.points}. */
const CURVE_SAMPLES = 16;
const START = '(start)';

function edgesOf(name: string, state: AslState): { to: string; kind: GraphEdge['kind']; rules: string[] }[] {
  const out: { to: string; kind: GraphEdge['kind']; rules: string[] }[] = [];
  const add = (to: string, kind: GraphEdge['kind'], rule?: string) => {
    if (to === name) return;
    // Several edges to the same target (two Choices to one state) are drawn once, with every rule.
    const drawn = out.find((e) => e.to === to);
    if (drawn) {
      if (rule !== undefined) drawn.rules.push(rule);
      return;
    }
    out.push({ to, kind, rules: rule === undefined ? [] : [rule] });
  };
  if (state.Next) add(state.Next, 'next');
  for (const choice of state.Choices ?? []) if (choice.Next) add(choice.Next, 'choice', choiceRuleText(choice));
  if (state.Default) add(state.Default, 'default', 'Default');
  for (const c of state.Catch ?? []) if (c.Next) add(c.Next, 'catch');
  return out;
}

const endsRun = (state: AslState | undefined) =>
  Boolean(state && (state.End || state.Type === 'Succeed' || state.Type === 'Fail'));

/** Lays out the graph: nodes with positions, edges marked forward or back and routed clear of other states. */
export function layoutStateGraph(definition: AslDefinition): {
  nodes: GraphNode[];
  edges: RoutedGraphEdge[];
  width: number;
  height: number;
} {
  const states = definition.States;
  const names = [START, ...Object.keys(states)];
  const successors = new Map<string, { to: string; kind: GraphEdge['kind']; rules: string[] }[]>();
  successors.set(START, [{ to: definition.StartAt, kind: 'next', rules: [] }]);
  for (const [name, state] of Object.entries(states)) {
    successors.set(
      name,
      edgesOf(name, state).filter((e) => e.to in states),
    );
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
      edges.push({ from: name, to: e.to, kind: e.kind, back: seen === 'active', rules: e.rules });
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

  // Edges that skip layers go round the left of the layers they pass, loops round the right; each such
  // edge gets its own lane, and the drawing room for the lanes.
  const skips = edges.filter((e) => !e.back && layer.get(e.to)! - layer.get(e.from)! > 1);
  const loops = edges.filter((e) => e.back);
  const laneRoom = (count: number) => (count > 0 ? SIDE_CLEARANCE + (count - 1) * SIDE_SPACING : 0);
  const leftRoom = laneRoom(skips.length);
  const rightRoom = laneRoom(loops.length);
  const widest = Math.max(1, ...layers.map((row) => row?.length ?? 0));
  const contentWidth = widest * GRAPH_NODE_WIDTH + (widest - 1) * COLUMN_GAP;
  const width = MARGIN * 2 + leftRoom + contentWidth + rightRoom;
  const nodes: GraphNode[] = [];
  layers.forEach((row, l) => {
    if (!row) return;
    const rowWidth = row.length * GRAPH_NODE_WIDTH + (row.length - 1) * COLUMN_GAP;
    const left = MARGIN + leftRoom + (contentWidth - rowWidth) / 2;
    row.forEach((name, i) =>
      nodes.push({
        id: name,
        type: name === START ? 'Terminal' : (states[name]?.Type ?? '?'),
        layer: l,
        x: left + i * (GRAPH_NODE_WIDTH + COLUMN_GAP),
        y: MARGIN + l * (GRAPH_NODE_HEIGHT + LAYER_GAP),
        end: endsRun(states[name]),
      }),
    );
  });
  const height =
    MARGIN * 2 +
    layers.length * GRAPH_NODE_HEIGHT +
    (layers.length - 1) * LAYER_GAP +
    (nodes.some((n) => n.end) ? END_MARKER_ROOM : 0);
  const at = new Map(nodes.map((n) => [n.id, n]));
  const routed = edges.map((e): RoutedGraphEdge => {
    const a = at.get(e.from)!;
    const b = at.get(e.to)!;
    if (e.back) return { ...e, ...routeRoundSide(a, b, nodes, 'right', loops.indexOf(e)) };
    if (b.layer - a.layer > 1) return { ...e, ...routeRoundSide(a, b, nodes, 'left', skips.indexOf(e)) };
    return { ...e, ...routeBetweenLayers(a, b) };
  });
  return { nodes, edges: routed, width, height };
}

const centreX = (n: GraphNode) => n.x + GRAPH_NODE_WIDTH / 2;
const bottom = (n: GraphNode) => n.y + GRAPH_NODE_HEIGHT;
/** Where an arrow stops above its target's box (the arrowhead fills the rest). */
const ARROW_GAP = 4;

/** An edge to the next layer: a curve from the source's bottom to the target's top, inside the gap between. */
function routeBetweenLayers(a: GraphNode, b: GraphNode): Pick<RoutedGraphEdge, 'd' | 'points'> {
  const [x1, y1, x2, y2] = [centreX(a), bottom(a), centreX(b), b.y - ARROW_GAP];
  const bend = (y1 + y2) / 2;
  const points: GraphPoint[] = [];
  for (let i = 0; i <= CURVE_SAMPLES; i++) {
    const t = i / CURVE_SAMPLES;
    const u = 1 - t;
    // The cubic below, with control points (x1, bend) and (x2, bend).
    points.push([
      u * u * u * x1 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t * t * t * x2,
      u * u * u * y1 + 3 * u * u * t * bend + 3 * u * t * t * bend + t * t * t * y2,
    ]);
  }
  return { d: `M${x1},${y1} C${x1},${bend} ${x2},${bend} ${x2},${y2}`, points };
}

/** How far from a box's side corner an edge leaves or enters it on the way to or from a side lane. */
const LANE_PORT_INSET = 24;

/**
 * An edge that skips layers (left) or loops back (right), along a lane beside every state of the layers
 * it spans. It leaves its source by the side facing the lane when no state of that layer is in the way
 * (else by the bottom, into the gap below), and enters its target the same way (by the side, or from the
 * gap above into the top). Gaps and lanes hold no state, so it crosses none.
 */
function routeRoundSide(
  a: GraphNode,
  b: GraphNode,
  nodes: readonly GraphNode[],
  side: 'left' | 'right',
  lane: number,
): Pick<RoutedGraphEdge, 'd' | 'points'> {
  const [top, low] = [Math.min(a.layer, b.layer), Math.max(a.layer, b.layer)];
  const passed = nodes.filter((n) => n.layer >= top && n.layer <= low);
  const offset = SIDE_CLEARANCE + lane * SIDE_SPACING;
  const laneX =
    side === 'left'
      ? Math.min(...passed.map((n) => n.x)) - offset
      : Math.max(...passed.map((n) => n.x + GRAPH_NODE_WIDTH)) + offset;
  // Nothing of its layer between a state and the lane: it can be left or entered by its side.
  const facesLane = (n: GraphNode) =>
    nodes.every((o) => o.layer !== n.layer || o === n || (side === 'left' ? o.x > n.x : o.x < n.x));
  const sideX = (n: GraphNode, gap = 0) => (side === 'left' ? n.x - gap : n.x + GRAPH_NODE_WIDTH + gap);
  const portX = (n: GraphNode) => (side === 'left' ? n.x + LANE_PORT_INSET : n.x + GRAPH_NODE_WIDTH - LANE_PORT_INSET);
  const middle = (n: GraphNode) => n.y + GRAPH_NODE_HEIGHT / 2;
  // Lanes of different edges are apart: so are their turns into the gaps.
  const below = bottom(a) + LAYER_GAP / 2 - lane * 2;
  const above = b.y - LAYER_GAP / 2 + lane * 2;
  const leave: GraphPoint[] = facesLane(a)
    ? [
        [sideX(a), middle(a)],
        [laneX, middle(a)],
      ]
    : [
        [portX(a), bottom(a)],
        [portX(a), below],
        [laneX, below],
      ];
  const enter: GraphPoint[] = facesLane(b)
    ? [
        [laneX, middle(b)],
        [sideX(b, ARROW_GAP), middle(b)],
      ]
    : [
        [laneX, above],
        [portX(b), above],
        [portX(b), b.y - ARROW_GAP],
      ];
  const points = [...leave, ...enter];
  return { d: `M${points.map(([x, y]) => `${x},${y}`).join(' L')}`, points };
}

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The graph as an `<svg>` element. Each state is a `<g class="state status-<status>" data-state="<name>"
 * data-status="<status>">` (tests and the page's CSS read these), with its type and status in a tooltip.
 */
export function renderStateGraph(
  definition: AslDefinition,
  statuses: ReadonlyMap<string, StateStatus> = new Map(),
  hrefOf: (state: string) => string | undefined = () => undefined,
): SafeHtml {
  const { nodes, edges, width, height } = layoutStateGraph(definition);
  const edgeMarkup = edges.map(
    (e) => html`<path class="edge edge-${e.kind}${e.back ? ' edge-back' : ''}" d="${e.d}" marker-end="url(#arrow)"/>`,
  );
  // A Choice's edges say which rule takes them: short on the edge, whole in its tooltip. Drawn after the states, on top.
  const labelMarkup = edges
    .filter((e) => e.rules.length > 0)
    .map((e) => {
      const [x, y] = e.points[Math.floor(e.points.length / 2)];
      const label = shortChoiceLabel(e.rules.map(shortChoiceLabel).join(' or '));
      return html`<g class="edge-label edge-label-${e.kind}" data-from="${e.from}" data-to="${e.to}"><title>${e.rules.join('\n')}</title><text x="${x}" y="${y + 4}">${label}</text></g>`;
    });
  const nodeMarkup = nodes.map((n) => {
    if (n.type === 'Terminal') {
      const cx = n.x + GRAPH_NODE_WIDTH / 2;
      const cy = n.y + GRAPH_NODE_HEIGHT / 2;
      return html`<g class="terminal"><circle cx="${cx}" cy="${cy}" r="10"/><text x="${cx + 16}" y="${cy + 4}">start</text></g>`;
    }
    const status = statuses.get(n.id) ?? 'not-run';
    const cx = centreX(n);
    const markerY = bottom(n) + END_MARKER_STUB + END_MARKER_RADIUS;
    // An ending state's own end marker: the run ends here (no edge to a shared end node across other states).
    const endMarker = n.end
      ? html`<g class="end-marker"><title>the run ends after ${n.id}</title><line x1="${cx}" y1="${bottom(n)}" x2="${cx}" y2="${markerY - END_MARKER_RADIUS}"/><circle cx="${cx}" cy="${markerY}" r="${END_MARKER_RADIUS}" class="ring"/><circle cx="${cx}" cy="${markerY}" r="${END_MARKER_RADIUS - 2.5}"/><text x="${cx + END_MARKER_RADIUS + 4}" y="${markerY + 4}">end</text></g>`
      : '';
    const node = html`<g class="state status-${status}" data-state="${n.id}" data-status="${status}"${n.end ? html` data-end="true"` : ''}><title>${n.id} (${n.type}): ${status}</title><rect x="${n.x}" y="${n.y}" width="${GRAPH_NODE_WIDTH}" height="${GRAPH_NODE_HEIGHT}" rx="6"/><text x="${cx}" y="${n.y + 15}" class="name">${truncate(n.id, 25)}</text><text x="${cx}" y="${n.y + 28}" class="type">${n.type}</text>${endMarker}</g>`;
    // A state the run entered opens its latest entry.
    const href = hrefOf(n.id);
    return href ? html`<a href="${href}" class="state-link">${node}</a>` : node;
  });
  return html`<svg class="state-graph" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="state machine graph"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>${edgeMarkup}${nodeMarkup}${labelMarkup}</svg>`;
}
