import { MAX_NAME_LENGTH } from '@autosave/workflow/config';
import { InvalidName } from './service-errors';

// As the API reference lists them: whitespace, brackets, wildcards, the reserved punctuation, control
// characters (U+0000-001F, U+007F-009F, U+FFFE-FFFF), surrogates (U+D800-DFFF) and U+10FFFF. In a `u`
// regex a well-formed pair is one code point outside that range, so only a lone surrogate matches.
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\s?*<>{}[\]"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f\ufffe\uffff\ud800-\udfff\u{10ffff}]/u;

/** Whether `name` is a valid state machine / execution name. */
export function isValidResourceName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length >= 1 &&
    // Counted in characters (code points), as the service counts them, not UTF-16 units.
    [...name].length <= MAX_NAME_LENGTH &&
    !FORBIDDEN.test(name)
  );
}

/** Throws `InvalidName` unless `name` is valid; `what` names the field in the message. */
export function assertValidName(name: unknown, what: string): string {
  if (!isValidResourceName(name))
    throw new InvalidName(`Invalid ${what}: ${JSON.stringify(typeof name === 'string' ? name : String(name))}`);
  return name;
}
