/**
 * A Map that forgets its oldest entry past a size limit: compiled expressions, parsed intrinsics and
 * wildcard patterns are cached by their text, and an engine that lives for months sees many definitions.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  /** @param maxEntries most entries kept. */
  constructor(private readonly maxEntries: number) {}

  /** The cached value, or `create()`'s (cached). Throws whatever `create` throws, caching nothing. */
  getOrCreate(key: string, create: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      value = create();
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, value);
    }
    return value;
  }
}

/** Most compiled expressions (and parsed intrinsics, wildcard patterns) kept per cache. */
export const DEFAULT_EXPRESSION_CACHE_SIZE = 10_000;
