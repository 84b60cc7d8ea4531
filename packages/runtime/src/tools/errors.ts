import { AutosaveError } from '@autosave/workflow/errors';

/** The tool says this request can never succeed (bad address, unknown site...). Never retried. */
export class ToolRejectedError extends AutosaveError {
  override readonly name = 'ToolRejectedError';
}

/**
 * A workflow names a tool that the tool-step function does not implement. Raised where it can be seen
 * before any run starts: at synth by the construct, and when the function starts (cold start) by the
 * handler, which compares its tools with the names the deploy says its workflows use.
 */
export class UnknownToolError extends AutosaveError {
  override readonly name = 'UnknownToolError';
}

/** A tool whose declaration cannot work (a name Bedrock refuses, two tools under one name, no `execute`). */
export class ToolDefinitionError extends AutosaveError {
  override readonly name = 'ToolDefinitionError';
}
