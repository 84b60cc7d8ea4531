/**
 * The example app's configuration for `autosave local`, `compile`, `start` and `demo` (found by walking up
 * from the current directory): its four workflows, its own tool-step, and the scripted model's answers.
 */
import { defineConfig } from '@autosave/local';
import { handler as toolStep } from './lambdas/tool-step';
import { workflows } from './statemachines';

export default defineConfig({
  workflows,
  // The example's own tool-step (its tools, tools/) in place of the built-in one, as infra/ deploys it.
  functions: { 'tool-step': toolStep },
  model: { script: './test/fixtures/model-script.json' },
});
