import { InvalidName } from './service-errors';

/** Longest state machine, alias or execution name the service accepts. */
export const MAX_NAME_LENGTH = 80;

// Whitespace, the reserved punctuation of FACTS.md and control characters (U+0000-U+001F, U+007F-U+009F).
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\s?*<>{}[\]"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]/;

/** Whether `name` is a valid state machine / execution name. */
export function isValidResourceName(name: unknown): name is string {
  return typeof name === 'string' && name.length >= 1 && name.length <= MAX_NAME_LENGTH && !FORBIDDEN.test(name);
}

/** Throws `InvalidName` unless `name` is valid; `what` names the field in the message. */
export function assertValidName(name: unknown, what: string): string {
  if (!isValidResourceName(name)) throw new InvalidName(`Invalid ${what}: '${String(name)}'`);
  return name;
}
