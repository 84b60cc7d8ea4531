/**
 * Jayway JsonPath's filter operators that JavaScript has no syntax for (https://github.com/json-path/JsonPath#filter-operators),
 * rewritten into the expressions jsonpath-plus evaluates: `A =~ /re/i` → `/re/i.test(A)`, `A in [..]` →
 * `[..].includes(A)`, `A nin [..]`, `A size n`, `A empty true|false`. An item lacking the member `A`
 * reads never match, as in Jayway.
 */

/** The index of the `)` closing the `(` at `open`, quotes and regular expressions skipped; -1 when none. */
function closingParenthesis(text: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '/' && /=~\s*$/.test(text.slice(open, i))) quote = '/';
    else if (c === '(' || c === '[') depth++;
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
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '/' && /=~\s*$/.test(body.slice(start, i))) quote = '/';
    else if (c === '(' || c === '[') depth++;
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

/** One comparison, rewritten when it uses an operator JavaScript lacks. */
function rewriteTerm(term: string): string {
  let m: RegExpExecArray | null;
  if ((m = /^(\s*)(\S.*?)\s+=~\s+(\/(?:[^/\\]|\\.)*\/[a-z]*)(\s*)$/s.exec(term))) return `${m[1]}(${present(m[2])} && ${m[3]}.test(${m[2]}))${m[4]}`;
  if ((m = /^(\s*)(\S.*?)\s+(nin|in)\s+(\[.*\])(\s*)$/s.exec(term))) return `${m[1]}(${present(m[2])} && ${m[3] === 'nin' ? '!' : ''}${m[4]}.includes(${m[2]}))${m[5]}`;
  if ((m = /^(\s*)(\S.*?)\s+size\s+(\d+)(\s*)$/s.exec(term))) return `${m[1]}(${present(m[2])} && ${m[2]}.length === ${m[3]})${m[4]}`;
  if ((m = /^(\s*)(\S.*?)\s+empty\s+(true|false)(\s*)$/s.exec(term))) return `${m[1]}(${present(m[2])} && (${m[2]}.length === 0) === ${m[3]})${m[4]}`;
  return term;
}

/** A path with each filter's Jayway-only operators rewritten (everything else as written). */
export function rewriteJaywayFilters(path: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (quote) {
      out += c;
      if (c === '\\' && i + 1 < path.length) out += path[++i];
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    if (c === '[' && path.startsWith('?(', i + 1)) {
      const open = i + 2;
      const close = closingParenthesis(path, open);
      if (close > 0) {
        out += `[?(${splitTerms(path.slice(open + 1, close)).map(rewriteTerm).join('')})`;
        i = close;
        continue;
      }
    }
    out += c;
  }
  return out;
}
