import { InvalidStepInputError } from '@autosave/workflow/errors';
import { classifyTextTool } from './classify-text-tool';
import type { EmailProvider } from './email/email-provider';
import { sendEmailTool } from './email/send-email-tool';
import { onboardingTools } from './fakes/onboarding-tools';
import { researchTools } from './research-tools';
import type { Tool } from './tool';

/** Every tool name workflows may use (docs/architecture.md §6). */
export const TOOL_NAMES = [
  'verify-site',
  'create-accounts',
  'request-irb-document',
  'provision-edc-access',
  'send-email',
  'schedule-kickoff',
  'search-web',
  'read-document',
  'calculator',
  'classify-text',
] as const;

/** One of {@link TOOL_NAMES}. */
export type ToolName = (typeof TOOL_NAMES)[number];

/** Tools by name. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  constructor(tools: readonly Tool[]) {
    for (const tool of tools) this.tools.set(tool.name, tool);
  }

  /** The tool of that name. @throws InvalidStepInputError for an unknown name (never retried). */
  get(name: string): Tool {
    const tool = this.tools.get(name);
    if (!tool) throw new InvalidStepInputError(`Unknown tool "${name}"; known: ${[...this.tools.keys()].join(', ')}`);
    return tool;
  }

  /** The registered names. */
  names(): string[] {
    return [...this.tools.keys()];
  }
}

/** Options of {@link createToolRegistry}. */
export interface ToolRegistryOptions {
  /** Provider behind `send-email`. */
  readonly emailProvider: EmailProvider;
  /** Where the onboarding fakes record their actions. */
  readonly actionsDir: string;
}

/** The registry of every tool in {@link TOOL_NAMES}. */
export function createToolRegistry(options: ToolRegistryOptions): ToolRegistry {
  return new ToolRegistry([sendEmailTool(options.emailProvider), ...onboardingTools(options.actionsDir), ...researchTools(), classifyTextTool]);
}
