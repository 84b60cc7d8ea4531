/**
 * Base of every error Autosave throws on purpose. Subclasses set a literal `name` (never
 * `constructor.name`, which minification breaks): a Lambda error surfaces in Step Functions under that
 * name, so state machines can match it in `ErrorEquals`.
 */
export abstract class AutosaveError extends Error {
  abstract override readonly name: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
