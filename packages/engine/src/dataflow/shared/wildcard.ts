/**
 * Wildcard matching (`*` is any run of characters) without a regular expression. `^a.*b.*c$` built from a
 * user's pattern backtracks polynomially, one degree per star: Choice's `StringMatches` with a dozen stars
 * against a long string, or an EventBridge `wildcard` rule, held the engine's thread for as long as it liked.
 * Here the literal pieces are found left to right, each at its first place after the one before (taking the
 * earliest place never loses a match), so a match costs at most the text's length times the pattern's.
 */

/** A compiled pattern: the literal pieces between its stars (`a*b*c` is `['a', 'b', 'c']`). */
export type WildcardMatcher = (text: string) => boolean;

/** A matcher of `pieces`, the literal text between stars, in order (one piece: no star at all). */
export function wildcardMatcher(pieces: readonly string[]): WildcardMatcher {
  const first = pieces[0] ?? '';
  if (pieces.length === 1) return (text) => text === first;
  const last = pieces[pieces.length - 1]!;
  const middle = pieces.slice(1, -1);
  return (text) => {
    if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
    let at = first.length;
    const end = text.length - last.length;
    for (const piece of middle) {
      const found = text.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}
