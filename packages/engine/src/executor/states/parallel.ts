/** Parallel: every branch starts at once on the state's effective input; the result is their outputs in order. */
import type { PreparedStateList } from '../../definition';
import type { StateModule, Step } from '../step';
import { onChildren, spawnGroup } from './children';

async function startBranches(step: Step): Promise<void> {
  const input = await step.flow.effectiveInput(step.state.definition, step.scope());
  const branches = step.state.branches as readonly PreparedStateList[];
  const group = spawnGroup(step);
  step.event('ParallelStateStarted');
  step.setPhase({ kind: 'children', type: 'Parallel', group, total: branches.length, maxConcurrency: 0 });
  branches.forEach((branch, i) => {
    const child = step.newChild(group, i, 'RUNNING', { path: branch.path, state: branch.startAt, input });
    step.batch.touch(child);
    step.fx.signals.push({ frameId: child.id, signal: { kind: 'resume' } });
  });
  if (branches.length === 0) step.fx.signals.push({ frameId: step.frame.id, signal: { kind: 'resume' } });
}

export const parallelState: StateModule = {
  enter: startBranches,
  attempt: startBranches,
  onChildren,
};
