/**
 * Fail: ends its list of states with an error and a cause (literal, JSONata, or ErrorPath/CausePath).
 * Without them, both stay out of ExecutionFailed and DescribeExecution, as AWS records it (not `""`).
 */
import type { StateModule } from '../step';
import { ENTER } from '../transition';

export const failState: StateModule = {
  async enter(step) {
    const { error, cause } = await step.flow.failure(step.state.definition, step.scope());
    step.fail({ ...(error !== undefined ? { error } : {}), ...(cause !== undefined ? { cause } : {}) }, ENTER);
  },
};
