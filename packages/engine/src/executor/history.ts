import type { HistoryEventRow } from '../store';
import { epochSeconds } from '../api/wire';

/** The fields of event details that carry execution data (dropped when `includeExecutionData` is false). */
const DATA_FIELDS = ['input', 'output', 'parameters', 'inputDetails', 'outputDetails'] as const;

/** The `*EventDetails` member an event type's details live in, as the service names it. */
export function detailsKey(type: string): string {
  if (type.endsWith('StateEntered')) return 'stateEnteredEventDetails';
  if (type.endsWith('StateExited')) return 'stateExitedEventDetails';
  return `${type[0].toLowerCase()}${type.slice(1)}EventDetails`;
}

/**
 * The details key holding the members an event pulled from another endpoint carried beside its details
 * (engine/imports/wire-events; no service field starts with `$`).
 */
export const OTHER_MEMBERS = '$members';

/**
 * Puts an imported event's other members back on its wire shape (`event` holds its details under `key`):
 * they leave the details, and a details member the source did not send goes.
 */
function restoreOtherMembers(event: Record<string, unknown>, key: string): void {
  const details = event[key] as Record<string, unknown>;
  const kept = details[OTHER_MEMBERS] as { members: Record<string, unknown>; bare?: true };
  delete details[OTHER_MEMBERS];
  if (kept.bare) delete event[key];
  Object.assign(event, kept.members);
}

/** A stored event in the GetExecutionHistory wire shape. */
export function toWireEvent(row: HistoryEventRow, includeExecutionData: boolean): Record<string, unknown> {
  const event: Record<string, unknown> = {
    timestamp: epochSeconds(row.ts_ms),
    type: row.type,
    id: row.id,
    previousEventId: row.previous_id,
  };
  if (row.details) {
    // A copy either way: the data fields may be dropped below.
    const details =
      typeof row.details === 'string' ? (JSON.parse(row.details) as Record<string, unknown>) : { ...row.details };
    if (!includeExecutionData) for (const f of DATA_FIELDS) delete details[f];
    const key = detailsKey(row.type);
    event[key] = details;
    // An event pulled from another endpoint may carry members beside its details (engine/imports/wire-events).
    if (details[OTHER_MEMBERS] !== undefined) restoreOtherMembers(event, key);
  }
  return event;
}

/** Details of an event carrying a payload: `input`/`output` as JSON text and its size details. */
export const payloadDetails = (field: 'input' | 'output', value: unknown): Record<string, unknown> =>
  payloadTextDetails(field, JSON.stringify(value ?? null));

/** Details of an event carrying a payload already written as JSON text (kept as written). */
export const payloadTextDetails = (field: 'input' | 'output', text: string): Record<string, unknown> => ({
  [field]: text,
  [`${field}Details`]: { truncated: false },
});

/** `assignedVariables` of a StateExited event: each variable as JSON text. */
export function assignedDetails(assign: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(assign);
  if (keys.length === 0) return {};
  return {
    assignedVariables: Object.fromEntries(keys.map((k) => [k, JSON.stringify(assign[k] ?? null)])),
    assignedVariablesDetails: { truncated: false },
  };
}
