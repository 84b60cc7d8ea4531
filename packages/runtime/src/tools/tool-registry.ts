import { InvalidStepInputError } from '@autosave/workflow/errors';
import type { EmailProvider } from './email/email-provider';
import { sendEmailTool } from './email/send-email-tool';
import { ToolDefinitionError, UnknownToolError } from './errors';
import type { Tool } from './tool';

/** Tools by name. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  /** @throws ToolDefinitionError when two tools share a name (a call could reach either). */
  constructor(tools: readonly Tool[]) {
    for (const tool of tools) {
      if (this.tools.has(tool.name))
        throw new ToolDefinitionError(`Two tools are named "${tool.name}"; each tool needs a name of its own`);
      this.tools.set(tool.name, tool);
    }
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

  /**
   * Refuses a registry that lacks any of `required` (the tools the deployed workflows name), so a missing
   * tool stops the function at its start instead of failing a run at that step, after its approvals.
   * @throws UnknownToolError naming every missing tool
   */
  requireTools(required: readonly string[], where = 'this tool-step function'): void {
    const missing = required.filter((name) => !this.tools.has(name));
    if (missing.length > 0) {
      throw new UnknownToolError(
        `The workflows name ${missing.map((n) => `"${n}"`).join(', ')}, which ${where} does not implement (it has: ${this.names().join(', ') || 'no tools'}). ` +
          'Add them to toolStepHandler({ tools }) or change the workflows.',
      );
    }
  }
}

/**
 * The environment variable through which a deploy tells the tool-step function which tools its workflows
 * name (comma-separated); the handler checks its tools against it when it starts.
 */
export const REQUIRED_TOOLS_ENV = 'AUTOSAVE_REQUIRED_TOOLS';

/** The tool names a deploy requires ({@link REQUIRED_TOOLS_ENV}), none when it is unset. */
export function requiredToolsOf(env: NodeJS.ProcessEnv): string[] {
  return (env[REQUIRED_TOOLS_ENV] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** What a tool may need from the function it runs in, configured by the deploy (SES or the local outbox, data dirs). */
export interface ToolContext {
  /** SES when the deploy configured a verified identity, else the outbox directory. */
  readonly emailProvider: EmailProvider;
  /** A writable directory for tools that record what they did (`AUTOSAVE_ACTIONS_DIR`; /tmp on Lambda). */
  readonly actionsDir: string;
}

/**
 * The tools of a tool-step function: a list, or a function of the {@link ToolContext} when a tool needs
 * the configured email provider or a directory.
 */
export type ToolList = readonly Tool[] | ((context: ToolContext) => readonly Tool[]);

/** The names of the tools that ship with Autosave, which a tool-step may add ({@link builtInTools}). */
export const BUILT_IN_TOOL_NAMES: readonly string[] = ['send-email'];

/** The tools that ship with Autosave: `send-email` over the configured provider. */
export function builtInTools(context: ToolContext): Tool[] {
  return [sendEmailTool(context.emailProvider)];
}

/** A registry of `tools` in `context`. */
export function toolRegistryOf(tools: ToolList, context: ToolContext): ToolRegistry {
  return new ToolRegistry(typeof tools === 'function' ? tools(context) : tools);
}
