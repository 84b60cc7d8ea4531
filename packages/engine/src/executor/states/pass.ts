/** Pass: its effective input (JSONPath `Result`/`Parameters`, JSONata `Output`) becomes its output. */
import type { StateModule } from '../step';

export const passState: StateModule = {
  async enter(step) {
    await step.exit(await step.flow.effectiveInput(step.state.definition, step.scope()));
  },
};
