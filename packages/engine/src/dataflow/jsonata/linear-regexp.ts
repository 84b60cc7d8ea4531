/**
 * The regex engine JSONata runs a workflow's regexes with (`$match`, `$replace`, `$split`, `$contains`
 * with `/pattern/`): RE2's linear-time matching (re2js, pure JavaScript), instead of the backtracking
 * `RegExp` on which `$match("aaaaaaaaaaaaaaaaaaaaaaaaaa!", /^(a+)+$/)` takes seconds, doubling with each
 * extra `a`, on the engine's only thread. JSONata needs of its engine only what it uses of `RegExp`:
 * constructed from the parsed literal, `lastIndex` to start from, and `exec` returning a match array.
 */
import type { RE2JS } from 're2js';
import { BoundedCache, DEFAULT_EXPRESSION_CACHE_SIZE } from '../shared/bounded-cache';
import { re2js } from '../../re2';

/** Compiled patterns by their literal: JSONata builds a new engine each time a regex node is evaluated (in every `$map` item). */
const compiled = new BoundedCache<RE2JS>(DEFAULT_EXPRESSION_CACHE_SIZE);

/** A pattern RE2 does not accept (lookaround, backreferences): a failed expression, in plain words. */
export class UnsupportedRegexError extends Error {
  override readonly name = 'UnsupportedRegexError';
}

/** A `RegExp`-shaped matcher over RE2: linear in the input, whatever the pattern. */
export class LinearRegExp {
  /** Where the next `exec` starts (JSONata sets it before each call). */
  lastIndex = 0;
  private readonly pattern: RE2JS;

  /** @param literal the regex as JSONata's parser built it (its `i` and `m` flags are kept). */
  constructor(literal: RegExp) {
    try {
      this.pattern = compiled.getOrCreate(String(literal), () => re2js().compile(re2js().translateRegExp(literal)));
    } catch (err) {
      throw new UnsupportedRegexError(
        `the regex ${String(literal)} uses syntax the engine's linear-time regex engine (RE2) does not support, such as lookaround or backreferences: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  /** The next match at or after `lastIndex`, as `RegExp.prototype.exec` gives it (UTF-16 indices), or null. */
  exec(input: string): RegExpExecArray | null {
    const matcher = this.pattern.matcher(input);
    if (this.lastIndex > input.length || !matcher.find(this.lastIndex)) return null;
    const groups: Array<string | undefined> = [];
    for (let i = 0; i <= matcher.groupCount(); i++) groups.push(matcher.group(i) ?? undefined);
    const match = Object.assign(groups, { index: matcher.start(), input }) as unknown as RegExpExecArray;
    this.lastIndex = matcher.end();
    return match;
  }
}
