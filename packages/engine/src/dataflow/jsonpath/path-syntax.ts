/**
 * Whether a JSONPath is written as Step Functions reads it at CreateStateMachine. AWS runs Jayway
 * JsonPath, which takes more than the ASL spec's examples show: a dot before a bracket (`$.[0]`,
 * `$.Items.[0].State`), filters with `&&`/`||`, comparisons with `$` paths and nested members
 * (`$.a[?(@.b.c == 'x')]`), unions of names (`$['a','b']`) and of indexes, slices, `..`, `*` and a
 * trailing function (`$.items.length()`). Refused: what Jayway cannot parse (an empty or unclosed step,
 * unbalanced brackets, parentheses or quotes, text after the path).
 */

/** The root of a path: `$$` (context), `$name` (a variable) or `$`. */
const ROOT = /^(?:\$\$|\$[A-Za-z_][A-Za-z0-9_]*|\$)/;
/** A member name after `.` or `..`: anything up to the next `.` or `[` (Jayway allows most characters). */
const DOT_NAME = /^(?:\*|[^.[\]\s()'"]+(?:\(\))?)/;
const QUOTED = String.raw`(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")`;
const INTEGER = String.raw`-?\d+`;
/** What a bracket may hold besides a filter or a script: `*`, indexes, slices, quoted names (one or a union). */
const BRACKET_CONTENT = new RegExp(
  String.raw`^\s*(?:\*|${INTEGER}(?:\s*,\s*${INTEGER})*|(?:${INTEGER})?\s*:\s*(?:${INTEGER})?(?:\s*:\s*(?:${INTEGER})?)?|${QUOTED}(?:\s*,\s*${QUOTED})*)\s*$`,
);

/** The index just past the `]` closing the bracket opened at `open`, quotes and parentheses skipped; -1 when it never closes. */
function closingBracket(path: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < path.length; i++) {
    const c = path[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') {
      depth--;
      if (depth < 0) return -1;
      if (depth === 0) return c === ']' ? i + 1 : -1;
    }
  }
  return -1;
}

/** Whether a filter's or script's parentheses and quotes balance (`?(...)` / `(...)`). */
function balancedExpression(text: string): boolean {
  if (!text.startsWith('(') || !text.endsWith(')') || text.length < 3) return false;
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') {
      depth--;
      if (depth < 0) return false;
    }
  }
  return depth === 0 && quote === undefined;
}

/** Why `path` is not a JSONPath Step Functions takes, or undefined when it is one. */
export function jsonPathProblem(path: string): string | undefined {
  const root = ROOT.exec(path);
  if (!root) return "it must start with '$'";
  let i = root[0].length;
  while (i < path.length) {
    if (path.startsWith('..', i)) {
      i += 2;
      if (path[i] === '[') continue;
      const name = DOT_NAME.exec(path.slice(i));
      if (!name) return `a member name must follow '..' at position ${i}`;
      i += name[0].length;
    } else if (path[i] === '.') {
      i += 1;
      if (path[i] === '[') continue;
      const name = DOT_NAME.exec(path.slice(i));
      if (!name) return `a member name must follow '.' at position ${i}`;
      i += name[0].length;
    } else if (path[i] === '[') {
      const end = closingBracket(path, i);
      if (end < 0) return `the bracket at position ${i} is not closed`;
      const content = path.slice(i + 1, end - 1).trim();
      const ok = content.startsWith('?')
        ? balancedExpression(content.slice(1).trim())
        : content.startsWith('(')
          ? balancedExpression(content)
          : BRACKET_CONTENT.test(content);
      if (!ok) return `'[${content}]' at position ${i} is not an index, slice, name, union, filter or script`;
      i = end;
    } else {
      return `unexpected '${path[i]}' at position ${i}`;
    }
  }
  return undefined;
}
