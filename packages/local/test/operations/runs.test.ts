import { describe, expect, it } from 'vitest';
import { InvalidRunFilterError, parseRunStatus, RUN_STATUS_FILTERS, WAITING_RUN_FILTER } from '../../src/operations';

describe('parseRunStatus', () => {
  it.each([
    ['running', 'RUNNING'],
    ['FAILED', 'FAILED'],
    ['waiting', WAITING_RUN_FILTER],
    ['WAITING', WAITING_RUN_FILTER],
    [undefined, undefined],
  ])('reads %s as %s', (value, status) => expect(parseRunStatus(value)).toBe(status));

  it('refuses an unknown status and lists the filters, WAITING among them', () => {
    expect(() => parseRunStatus('sleeping')).toThrow(InvalidRunFilterError);
    expect(() => parseRunStatus('sleeping')).toThrow(/one of RUNNING, WAITING, SUCCEEDED, /);
  });

  it('refuses PENDING_REDRIVE, which Step Functions lists for a Map Run only (ValidationException for a workflow)', () => {
    expect(() => parseRunStatus('pending_redrive')).toThrow(InvalidRunFilterError);
    expect(RUN_STATUS_FILTERS).not.toContain('PENDING_REDRIVE');
  });

  it('offers WAITING right after RUNNING, as the console lists its filters', () => {
    expect(RUN_STATUS_FILTERS.slice(0, 3)).toEqual(['RUNNING', 'WAITING', 'SUCCEEDED']);
  });
});
