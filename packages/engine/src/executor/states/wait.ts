/** Wait: a timer row until Seconds/Timestamp (or their Path forms) on the engine clock, then exit. */
import { MAX_WAIT_DELAY_SECONDS } from '@autosave/workflow/config';
import { StatesRuntimeError } from '../../dataflow';
import type { StateModule } from '../step';

export const waitState: StateModule = {
  async enter(step) {
    const dueMs = await step.flow.waitUntil(step.state.definition, step.scope(), step.now());
    if (dueMs - step.now() > MAX_WAIT_DELAY_SECONDS * 1000)
      throw new StatesRuntimeError('Wait state delay is too long.');
    step.frame.pos.seq += 1;
    step.setPhase({ kind: 'wait' }, [{ kind: 'wait', dueMs }]);
  },

  async onTimer(step, timer) {
    if (timer !== 'wait' || step.frame.pos.phase.kind !== 'wait') return false;
    await step.guard(() => step.exit(step.frame.pos.input));
    await step.drive();
    return true;
  },
};
