/**
 * A GetExecutionHistory event as the import stores it, and back: the event's `*EventDetails` member is its
 * details (as the engine's own events keep them); any other member (a field a newer service adds, a
 * details member named otherwise than `detailsKey(type)` says) is kept beside them under
 * {@link OTHER_MEMBERS}, so every field round-trips.
 */
import { detailsKey, OTHER_MEMBERS } from '../executor/history';
import type { ImportedEvent } from './history-replay';
import { ImportRefusedError } from './import-errors';

/** The members every event has, outside its details. */
const FRAME_MEMBERS = new Set(['timestamp', 'type', 'id', 'previousEventId']);

/**
 * A history event on the import's wire: GetExecutionHistory's shape with `timestamp` in epoch
 * milliseconds (the SDKs read it as a date; the service sends epoch seconds).
 */
export interface WireHistoryEvent {
  readonly timestamp: number;
  readonly type: string;
  readonly id: number;
  readonly previousEventId?: number;
  readonly [member: string]: unknown;
}

/** A wire event as the store keeps it; throws {@link ImportRefusedError} for one that is not an event. */
export function toImportedEvent(wire: WireHistoryEvent): ImportedEvent {
  if (
    typeof wire?.type !== 'string' ||
    !Number.isInteger(wire.id) ||
    wire.id < 1 ||
    typeof wire.timestamp !== 'number'
  ) {
    throw new ImportRefusedError(`not a history event: ${JSON.stringify(wire).slice(0, 200)}`);
  }
  const key = detailsKey(wire.type);
  const own = wire[key] as Record<string, unknown> | undefined;
  let others: Record<string, unknown> | undefined;
  for (const member of Object.keys(wire)) {
    if (FRAME_MEMBERS.has(member) || member === key) continue;
    (others ??= {})[member] = wire[member];
  }
  const details = others
    ? { ...(own ?? {}), [OTHER_MEMBERS]: { members: others, ...(own === undefined ? { bare: true } : {}) } }
    : own;
  return {
    id: wire.id,
    type: wire.type,
    ts_ms: Math.round(wire.timestamp),
    previous_id: wire.previousEventId ?? 0,
    details,
  };
}
