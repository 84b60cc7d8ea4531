import { describe, expect, it } from 'vitest';
import { compileWorkflow } from '@autosave/workflow';
import { workflows } from '../../../../statemachines/index';
import { layoutStateGraph, renderStateGraph, type AslDefinition } from '../../src/console/state-graph';

const agentLoop: AslDefinition = {
  StartAt: 'Start',
  States: {
    Start: { Type: 'Pass', Next: 'Model' },
    Model: { Type: 'Task', Next: 'Final?' },
    'Final?': { Type: 'Choice', Choices: [{ Next: 'Done' }], Default: 'Tools' },
    Tools: { Type: 'Task', Next: 'Model', Catch: [{ Next: 'Failed' }] },
    Failed: { Type: 'Fail' },
    Done: { Type: 'Succeed' },
  },
};

describe('layoutStateGraph', () => {
  it('layers states by longest path from the start, setting loops aside as back edges', () => {
    const { nodes, edges } = layoutStateGraph(agentLoop);
    const layer = Object.fromEntries(nodes.map((n) => [n.id, n.layer]));
    expect(layer).toMatchObject({ '(start)': 0, Start: 1, Model: 2, 'Final?': 3, Tools: 4, Done: 4, Failed: 5 });
    expect(edges.filter((e) => e.back)).toEqual([
      expect.objectContaining({ from: 'Tools', to: 'Model', kind: 'next', back: true }),
    ]);
    expect(edges.find((e) => e.from === 'Tools' && e.to === 'Failed')?.kind).toBe('catch');
  });

  it('marks the states that end the run instead of drawing edges to a shared end node', () => {
    const { nodes, edges } = layoutStateGraph(agentLoop);
    expect(
      nodes
        .filter((n) => n.end)
        .map((n) => n.id)
        .sort(),
    ).toEqual(['Done', 'Failed']);
    expect(edges.map((e) => e.to)).not.toContain('(end)');
  });

  it('never places two states of a layer on top of each other', () => {
    const { nodes } = layoutStateGraph(agentLoop);
    const spots = nodes.map((n) => `${n.x},${n.y}`);
    expect(new Set(spots).size).toBe(spots.length);
  });

  it('still draws states no transition reaches', () => {
    const { nodes } = layoutStateGraph({
      StartAt: 'A',
      States: { A: { Type: 'Succeed' }, Orphan: { Type: 'Pass', End: true } },
    });
    expect(nodes.map((n) => n.id)).toContain('Orphan');
  });
});

describe('renderStateGraph', () => {
  it('colours each state by its status (not-run by default) and escapes state names', () => {
    const svg = renderStateGraph(
      { StartAt: 'a<b', States: { 'a<b': { Type: 'Task', Next: 'c' }, c: { Type: 'Succeed' } } },
      new Map([['a<b', 'waiting' as const]]),
    ).toString();
    expect(svg).toContain('<g class="state status-waiting" data-state="a&lt;b" data-status="waiting">');
    expect(svg).toContain('<g class="state status-not-run" data-state="c" data-status="not-run" data-end="true">');
    expect(svg).not.toContain('a<b');
  });
});

type Box = { readonly x: number; readonly y: number; readonly width: number; readonly height: number };

/** The polyline of an SVG path made of absolute M, L and C commands (curves sampled). */
function pathPoints(d: string): [number, number][] {
  const points: [number, number][] = [];
  for (const [, command, args] of d.matchAll(/([MLC])([^MLC]*)/g)) {
    const n = args
      .trim()
      .split(/[\s,]+/)
      .map(Number);
    if (command !== 'C') {
      points.push([n[0], n[1]]);
      continue;
    }
    const [x0, y0] = points.at(-1)!;
    for (let i = 1; i <= 32; i++) {
      const t = i / 32;
      const u = 1 - t;
      const at = (p0: number, p1: number, p2: number, p3: number) =>
        u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
      points.push([at(x0, n[0], n[2], n[4]), at(y0, n[1], n[3], n[5])]);
    }
  }
  return points;
}

const distanceToBox = ([x, y]: [number, number], b: Box) =>
  Math.hypot(Math.max(b.x - x, 0, x - (b.x + b.width)), Math.max(b.y - y, 0, y - (b.y + b.height)));
const insideBox = ([x, y]: [number, number], b: Box) =>
  x > b.x + 1 && x < b.x + b.width - 1 && y > b.y + 1 && y < b.y + b.height - 1;

/** The states whose boxes an edge's drawn segments pass through, other than the boxes it starts and ends at. */
function statesCrossed(svg: string): string[] {
  const boxes = [
    ...svg.matchAll(
      /<g class="state[^"]*" data-state="([^"]+)"[^>]*>.*?<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/g,
    ),
  ].map(([, name, x, y, width, height]) => ({ name, x: +x, y: +y, width: +width, height: +height }));
  const crossings: string[] = [];
  for (const [, d] of svg.matchAll(/<path class="edge[^"]*" d="([^"]+)"/g)) {
    const points = pathPoints(d);
    // The endpoints' boxes: where the edge leaves and where its arrow arrives (within a few units).
    const ends = boxes.filter((b) => distanceToBox(points[0], b) <= 5 || distanceToBox(points.at(-1)!, b) <= 5);
    for (const box of boxes.filter((b) => !ends.includes(b))) {
      const crossed = points.slice(1).some((to, i) => {
        const from = points[i];
        const steps = Math.ceil(Math.hypot(to[0] - from[0], to[1] - from[1]));
        return Array.from({ length: steps + 1 }, (_, k): [number, number] => [
          from[0] + ((to[0] - from[0]) * k) / steps,
          from[1] + ((to[1] - from[1]) * k) / steps,
        ]).some((p) => insideBox(p, box));
      });
      if (crossed) crossings.push(`${d} crosses ${box.name}`);
    }
  }
  return crossings;
}

describe('state graph edges', () => {
  it.each(workflows.map((w) => [w.name, w] as const))(
    'no edge of %s passes through a state it does not join',
    (_name, workflow) => {
      const svg = renderStateGraph(compileWorkflow(workflow) as unknown as AslDefinition).toString();
      expect(svg).toMatch(/<path class="edge/);
      expect(statesCrossed(svg)).toEqual([]);
    },
  );

  it('no edge passes through other states when a Catch skips layers or a loop goes back', () => {
    const skipping: AslDefinition = {
      StartAt: 'A',
      States: {
        A: { Type: 'Task', Next: 'B', Catch: [{ Next: 'E' }] },
        B: { Type: 'Choice', Choices: [{ Next: 'C' }, { Next: 'X' }], Default: 'A' },
        X: { Type: 'Task', Next: 'C' },
        C: { Type: 'Task', Next: 'D' },
        D: { Type: 'Task', Next: 'E' },
        E: { Type: 'Succeed' },
      },
    };
    expect(statesCrossed(renderStateGraph(skipping).toString())).toEqual([]);
    expect(statesCrossed(renderStateGraph(agentLoop).toString())).toEqual([]);
  });

  it('draws an end marker under each state that ends the run', () => {
    const svg = renderStateGraph(agentLoop).toString();
    expect(svg.match(/class="end-marker"/g)).toHaveLength(2);
    expect(svg).toMatch(/data-state="Done"[^>]*data-end="true"/);
  });
});
