import { describe, expect, it } from 'vitest';
import { layoutStateGraph, renderStateGraph, type AslDefinition } from '../../../../local/console/state-graph';

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
    expect(layer['(end)']).toBe(6);
    expect(edges.filter((e) => e.back)).toEqual([{ from: 'Tools', to: 'Model', kind: 'next', back: true }]);
    expect(edges.find((e) => e.from === 'Tools' && e.to === 'Failed')?.kind).toBe('catch');
  });

  it('never places two states of a layer on top of each other', () => {
    const { nodes } = layoutStateGraph(agentLoop);
    const spots = nodes.map((n) => `${n.x},${n.y}`);
    expect(new Set(spots).size).toBe(spots.length);
  });

  it('still draws states no transition reaches', () => {
    const { nodes } = layoutStateGraph({ StartAt: 'A', States: { A: { Type: 'Succeed' }, Orphan: { Type: 'Pass', End: true } } });
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
    expect(svg).toContain('<g class="state status-not-run" data-state="c" data-status="not-run">');
    expect(svg).not.toContain('a<b');
  });
});
