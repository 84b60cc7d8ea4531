/**
 * The example app's tool-step function: Autosave's tool-step handler over the example's own tools
 * (tools/). The construct bundles this file (infra/: `toolStep: { entry: 'lambdas/tool-step.ts' }`);
 * the local engine runs it as `autosave-tool-step` (autosave.config.ts).
 */
import { toolStepHandler } from '@autosave/runtime/lambda';
import { exampleTools } from '../tools';

export const handler = toolStepHandler({ tools: exampleTools });
