/** Fail: ends its list of states with an error and a cause (literal, JSONata, or ErrorPath/CausePath). */
import type { StateModule } from '../step';
import { ENTER } from '../transition';

export const failState: StateModule = {
  async enter(step) {
    const { error, cause } = await step.flow.failure(step.state.definition, step.scope());
    step.fail({ error: error ?? '', cause: cause ?? '' }, ENTER);
  },
};
