/**
 * Keeps `value` under `key` as the newest entry of `map`, and drops the oldest entry once the map holds more
 * than `limit`: a Map iterates in insertion order, so re-inserting a key makes it the newest. The bounded
 * caches of rows the engine wrote itself (run headers, transition bases, state machine rows) all keep this way.
 */
export function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value as K);
}
