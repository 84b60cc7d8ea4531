import { builtInTools } from '../tools';
import { toolStepHandler } from '../lambda';

/** tool-step with the built-in tools only (`send-email`): the construct's default when no `toolStep.entry` is given. */
export const handler = toolStepHandler({ tools: builtInTools });
