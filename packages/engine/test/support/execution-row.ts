import type { ExecutionRow } from '../../src/store';

/** A RUNNING execution row of machine `m`, named `run` unless `overrides` say otherwise, for store tests. */
export function executionRowOf(arn: string, overrides: Partial<ExecutionRow> = {}): ExecutionRow {
  return {
    arn,
    seq: 0,
    machine_arn: 'arn:aws:states:us-east-1:123456789012:stateMachine:m',
    machine_name: 'm',
    name: 'run',
    version_arn: null,
    alias_arn: null,
    role_arn: 'arn:aws:iam::123456789012:role/r',
    definition_hash: 'h',
    input: '{}',
    status: 'RUNNING',
    start_ms: 0,
    stop_ms: null,
    output: null,
    error: null,
    cause: null,
    redrive_count: 0,
    redrive_ms: null,
    redrive_token: null,
    parent_task: null,
    event_count: 0,
    ...overrides,
  };
}
