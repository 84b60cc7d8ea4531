/** Succeed: ends its list of states with its input as output (after OutputPath/Output). */
import type { StateModule } from '../step';

export const succeedState: StateModule = {
  async enter(step) {
    await step.exit(step.frame.pos.input);
  },
};
