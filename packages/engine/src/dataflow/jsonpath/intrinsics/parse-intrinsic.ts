/**
 * Parser for intrinsic function calls: `States.Name(arg, ...)` where an argument is a quoted string
 * (`'...'` with `\'`, `\\`, `\{`, `\}` escapes), a number, `true`/`false`/`null`, a path (`$.x`, `$$.x`,
 * `$var`), or another call.
 */

/** A parsed intrinsic argument. */
export type IntrinsicArgument =
  | {
      readonly kind: 'literal';
      readonly value: unknown;
      /** a string literal as written, escapes kept (States.Format reads `\{`) */ readonly raw?: string;
    }
  | { readonly kind: 'path'; readonly path: string }
  | IntrinsicCall;

/** A parsed call. */
export interface IntrinsicCall {
  readonly kind: 'call';
  /** e.g. `States.Format`. */
  readonly name: string;
  readonly args: readonly IntrinsicArgument[];
}

/** A call that does not parse; `message` says where. */
export class IntrinsicSyntaxError extends Error {
  override readonly name = 'IntrinsicSyntaxError';
}

/** Whether a `.$` value is an intrinsic function call rather than a path. */
export const isIntrinsicCall = (text: string): boolean => /^\s*States\.[A-Za-z0-9]+\s*\(/.test(text);

const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/;
const NAME = /^States\.[A-Za-z0-9]+/;
/** The characters a string literal may escape with a backslash (AWS's reserved characters). */
const STRING_ESCAPES = new Set(["'", '{', '}', '\\']);

/** Parses one intrinsic call (the whole text). */
export function parseIntrinsic(text: string): IntrinsicCall {
  let pos = 0;
  const fail = (what: string): never => {
    throw new IntrinsicSyntaxError(`Invalid intrinsic function '${text}': ${what} at position ${pos}.`);
  };
  const skipSpace = () => {
    while (pos < text.length && /\s/.test(text[pos])) pos++;
  };

  const parseString = (): IntrinsicArgument => {
    const start = ++pos;
    let value = '';
    while (pos < text.length && text[pos] !== "'") {
      if (text[pos] === '\\') {
        if (pos + 1 >= text.length) fail('an unfinished escape');
        // AWS takes only these escapes in a literal and refuses the call otherwise (`\"` included).
        if (!STRING_ESCAPES.has(text[pos + 1])) fail(`an invalid escape '\\${text[pos + 1]}'`);
        value += text[pos + 1];
        pos += 2;
      } else value += text[pos++];
    }
    if (pos >= text.length) fail('an unterminated string');
    const raw = text.slice(start, pos);
    pos++;
    return { kind: 'literal', value, raw };
  };

  /** A path runs to the next `,` or `)` outside brackets and quotes. */
  const parsePath = (): IntrinsicArgument => {
    const start = pos;
    let depth = 0;
    let quote: string | undefined;
    for (; pos < text.length; pos++) {
      const ch = text[pos];
      if (quote) {
        if (ch === '\\') pos++;
        else if (ch === quote) quote = undefined;
      } else if (ch === "'" || ch === '"') quote = ch;
      else if (ch === '[' || ch === '(') depth++;
      else if (ch === ']' || (ch === ')' && depth > 0)) depth--;
      else if (depth === 0 && (ch === ',' || ch === ')')) break;
    }
    const path = text.slice(start, pos).trim();
    if (!path) fail('an empty path');
    return { kind: 'path', path };
  };

  const parseArgument = (): IntrinsicArgument => {
    skipSpace();
    const rest = text.slice(pos);
    if (rest.startsWith("'")) return parseString();
    if (rest.startsWith('$')) return parsePath();
    if (NAME.test(rest)) return parseCall();
    const number = NUMBER.exec(rest);
    if (number) {
      pos += number[0].length;
      return { kind: 'literal', value: Number(number[0]) };
    }
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (rest.startsWith(word)) {
        pos += word.length;
        return { kind: 'literal', value };
      }
    }
    return fail('an unexpected argument');
  };

  const parseCall = (): IntrinsicCall => {
    skipSpace();
    const name = NAME.exec(text.slice(pos))?.[0] ?? fail('a missing States.<Function> name');
    pos += name.length;
    skipSpace();
    if (text[pos] !== '(') fail("a missing '('");
    pos++;
    const args: IntrinsicArgument[] = [];
    skipSpace();
    if (text[pos] === ')') {
      pos++;
      return { kind: 'call', name, args };
    }
    for (;;) {
      args.push(parseArgument());
      skipSpace();
      if (text[pos] === ',') pos++;
      else if (text[pos] === ')') {
        pos++;
        return { kind: 'call', name, args };
      } else fail("a missing ',' or ')'");
    }
  };

  const call = parseCall();
  skipSpace();
  if (pos !== text.length) fail('trailing text');
  return call;
}
