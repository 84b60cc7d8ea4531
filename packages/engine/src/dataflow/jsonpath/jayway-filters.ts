/**
 * Jayway JsonPath's filter operators that JavaScript has no syntax for (https://github.com/json-path/JsonPath#filter-operators),
 * rewritten into the expressions jsonpath-plus evaluates: `A =~ /re/i` → `/re/i.test(A)`, `A in [..]` →
 * `[..].includes(A)`, `A nin [..]`, `A size n`, `A empty true|false`, and the array comparisons
 * `A subsetof|anyof|noneof [..]` as calls of {@link JAYWAY_FILTER_SANDBOX}'s functions (jsonpath-plus's
 * safe evaluator has no function literals). An item lacking the member `A` reads never match, as in Jayway.
 */

const inList = (right: unknown) => (item: unknown) => Array.isArray(right) && right.includes(item);
/**
 * Jayway's array comparisons, given to jsonpath-plus as its filter sandbox: the left side must be an
 * array (anything else never matches, as in Jayway's evaluators), the right a list or a path to one.
 */
export const JAYWAY_FILTER_SANDBOX = {
  jaywaySubsetOf: (left: unknown, right: unknown) => Array.isArray(left) && left.every(inList(right)),
  jaywayAnyOf: (left: unknown, right: unknown) => Array.isArray(left) && left.some(inList(right)),
  jaywayNoneOf: (left: unknown, right: unknown) => Array.isArray(left) && !left.some(inList(right)),
} as const;
const ARRAY_COMPARISONS: Readonly<Record<string, keyof typeof JAYWAY_FILTER_SANDBOX>> = {
  subsetof: 'jaywaySubsetOf',
  anyof: 'jaywayAnyOf',
  noneof: 'jaywayNoneOf',
};

/**
 * Where a literal opened at `i` ends: a quoted string, or a regular expression right after `=~` (looked for
 * since `from`); `i` itself when nothing opens there.
 */
function literalEnd(text: string, i: number, from: number): number {
  const c = text[i];
  const close = c === "'" || c === '"' ? c : c === '/' && /=~\s*$/.test(text.slice(from, i)) ? '/' : undefined;
  if (!close) return i;
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === close) return j;
  }
  return text.length;
}

/** The index of the `)` closing the `(` at `open`, literals skipped; -1 when none. */
function closingParenthesis(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const end = literalEnd(text, i, open);
    if (end !== i) {
      i = end;
      continue;
    }
    const c = text[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') {
      depth--;
      if (depth === 0) return c === ')' ? i : -1;
    }
  }
  return -1;
}

/** Splits a filter body at its top-level `&&` and `||`, keeping the operators. */
function splitTerms(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const end = literalEnd(body, i, start);
    if (end !== i) {
      i = end;
      continue;
    }
    const c = body[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (depth === 0 && (body.startsWith('&&', i) || body.startsWith('||', i))) {
      parts.push(body.slice(start, i), body.slice(i, i + 2));
      start = i + 2;
      i++;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

const present = (operand: string) => `${operand} !== undefined && ${operand} !== null`;

/** The longest filter term whose Jayway operators are rewritten (test/unit/redos.test.ts). */
const MAX_REWRITTEN_TERM_LENGTH = 2_048;

/** One comparison, rewritten when it uses an operator JavaScript lacks. */
function rewriteTerm(term: string): string {
  // The patterns below backtrack quadratically on a long run of blanks: a longer term is left as written.
  if (term.length > MAX_REWRITTEN_TERM_LENGTH) return term;
  let m: RegExpExecArray | null;
  if ((m = /^(\s*)(\S.*?)\s+=~\s+(\/(?:[^/\\]|\\.)*\/[a-z]*)(\s*)$/s.exec(term)))
    return `${m[1]}(${present(m[2])} && ${m[3]}.test(${m[2]}))${m[4]}`;
  if ((m = /^(\s*)(\S.*?)\s+(nin|in)\s+(\[.*\])(\s*)$/s.exec(term)))
    return `${m[1]}(${present(m[2])} && ${m[3] === 'nin' ? '!' : ''}${m[4]}.includes(${m[2]}))${m[5]}`;
  if ((m = /^(\s*)(\S.*?)\s+size\s+(\d+)(\s*)$/s.exec(term)))
    return `${m[1]}(${present(m[2])} && ${m[2]}.length === ${m[3]})${m[4]}`;
  if ((m = /^(\s*)(\S.*?)\s+(subsetof|anyof|noneof)\s+(\[.*\]|[@$][^\s]*)(\s*)$/s.exec(term)))
    return `${m[1]}${ARRAY_COMPARISONS[m[3]]}(${m[2]}, ${m[4]})${m[5]}`;
  if ((m = /^(\s*)(\S.*?)\s+empty\s+(true|false)(\s*)$/s.exec(term)))
    return `${m[1]}(${present(m[2])} && (${m[2]}.length === 0) === ${m[3]})${m[4]}`;
  return term;
}

/** A path with each filter's Jayway-only operators rewritten (everything else as written). */
export function rewriteJaywayFilters(path: string): string {
  let out = '';
  let from = 0;
  for (let open = path.indexOf('[?(', from); open >= 0; open = path.indexOf('[?(', from)) {
    const close = closingParenthesis(path, open + 2);
    if (close < 0) break;
    out +=
      path.slice(from, open + 3) +
      splitTerms(path.slice(open + 3, close))
        .map(rewriteTerm)
        .join('');
    from = close;
  }
  return out + path.slice(from);
}
