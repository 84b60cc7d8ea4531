/** Choice: the first matching rule (or Default) names the next state; it has no Retry or Catch. */
import { assignedDetails, payloadDetails } from '../history';
import type { StateModule } from '../step';

export const choiceState: StateModule = {
  async enter(step) {
    const decision = await step.flow.choose(step.state.definition, step.scope());
    step.event('ChoiceStateExited', {
      name: step.frame.pos.state,
      ...payloadDetails('output', decision.output),
      ...assignedDetails(decision.assign),
    });
    step.moveTo(decision.next, decision.output, decision.assign);
  },
};
