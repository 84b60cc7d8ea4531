/**
 * The example app's configuration for `autosave local`, `compile`, `start` and `demo` (found by walking up
 * from the current directory): its four workflows, the built-in handlers, and the scripted model's answers.
 */
import { defineConfig } from '@autosave/local';
import { workflows } from './statemachines';

export default defineConfig({
  workflows,
  model: { script: './test/fixtures/model-script.json' },
});
