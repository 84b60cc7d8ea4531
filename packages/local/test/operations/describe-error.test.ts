import { describe, expect, it } from 'vitest';
import { describeOperationError, InvalidRunFilterError, parseRunStatus, RunNotFoundError } from '../../src/operations';

describe('describeOperationError', () => {
  it('names a domain error and keeps only the first line of its message', () => {
    expect(describeOperationError(new RunNotFoundError('no run named x\nmore detail'))).toBe(
      'RunNotFoundError: no run named x',
    );
  });

  it('says an unknown status plainly, listing the valid ones', () => {
    const err = (() => {
      try {
        parseRunStatus('sleeping');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(InvalidRunFilterError);
    expect(describeOperationError(err)).toMatch(/^unknown status 'sleeping' \(one of RUNNING, /);
  });

  it('says where a connection failure went, found through causes and aggregates', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const wrapped = new Error('fetch failed', { cause: new AggregateError([refused]) });
    expect(describeOperationError(wrapped, { endpoint: 'http://127.0.0.1:9 (--endpoint)' })).toMatch(
      /^cannot reach Step Functions at http:\/\/127\.0\.0\.1:9 \(--endpoint\): start the local engine/,
    );
  });

  it('leaves out the names the caller calls plain', () => {
    const usage = Object.assign(new Error('missing run'), { name: 'CliUsageError' });
    expect(describeOperationError(usage, { plainNames: ['CliUsageError'] })).toBe('missing run');
    expect(describeOperationError(usage)).toBe('CliUsageError: missing run');
  });
});
