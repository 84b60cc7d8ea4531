import { describe, expect, it } from 'vitest';
import type { ExecutionHeader } from '../../src/store';
import { RUN_HEADERS_KEPT, RunHeaders } from '../../src/executor/run-headers';

const header = (arn: string, event_count = 0): ExecutionHeader => ({
  arn,
  seq: 1,
  machine_arn: 'm',
  machine_name: 'm',
  name: arn,
  version_arn: null,
  alias_arn: null,
  role_arn: 'r',
  definition_hash: 'h',
  status: 'RUNNING',
  start_ms: 0,
  redrive_count: 0,
  redrive_ms: null,
  event_count,
});

describe('RunHeaders: the headers of running executions the executor wrote last', () => {
  it('counts every batch of a run written from it, whichever header the batch was computed from', () => {
    const headers = new RunHeaders();
    const read = header('a', 3);
    headers.remember(read);
    headers.written(read, 2);
    // A second frame of the run computed from the same read: its events come after the first frame's.
    headers.written(read, 4);
    expect(headers.get('a')?.event_count).toBe(9);
  });

  it('keeps the latest RUN_HEADERS_KEPT runs and forgets one on demand', () => {
    const headers = new RunHeaders();
    for (let i = 0; i <= RUN_HEADERS_KEPT; i += 1) headers.remember(header(`run-${i}`));
    expect(headers.get('run-0')).toBeUndefined();
    expect(headers.get(`run-${RUN_HEADERS_KEPT}`)).toBeDefined();
    headers.forget(`run-${RUN_HEADERS_KEPT}`);
    expect(headers.get(`run-${RUN_HEADERS_KEPT}`)).toBeUndefined();
  });
});
