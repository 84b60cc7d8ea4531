/**
 * EventBridge content filtering as AWS documents it (EventBridge User Guide, "Creating event patterns"
 * and "Content filtering"), on the event Step Functions sends when a run closes.
 */
import { describe, expect, it } from 'vitest';
import { eventPatternProblem, matchesEventPattern } from '../../../src/services/eventbridge';

const closed = {
  version: '0',
  source: 'aws.states',
  'detail-type': 'Step Functions Execution Status Change',
  resources: ['arn:aws:states:us-east-1:123456789012:execution:onboarding:site-1'],
  detail: {
    executionArn: 'arn:aws:states:us-east-1:123456789012:execution:onboarding:site-1',
    stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:onboarding',
    status: 'FAILED',
    redriveCount: 0,
    error: null,
  },
};

describe('matchesEventPattern', () => {
  it.each([
    [
      'the rule CDK synthesizes for closed runs',
      {
        source: ['aws.states'],
        'detail-type': ['Step Functions Execution Status Change'],
        detail: { status: ['SUCCEEDED', 'FAILED'], stateMachineArn: [closed.detail.stateMachineArn] },
      },
      true,
    ],
    ['a status the rule does not list', { detail: { status: ['SUCCEEDED'] } }, false],
    [
      'another state machine',
      { detail: { stateMachineArn: ['arn:aws:states:us-east-1:123456789012:stateMachine:other'] } },
      false,
    ],
    ['a field the event lacks', { detail: { cause: ['x'] } }, false],
    [
      'prefix',
      { detail: { executionArn: [{ prefix: 'arn:aws:states:us-east-1:123456789012:execution:onboarding:' }] } },
      true,
    ],
    ['suffix', { detail: { executionArn: [{ suffix: ':site-2' }] } }, false],
    ['anything-but a list', { detail: { status: [{ 'anything-but': ['SUCCEEDED', 'ABORTED'] }] } }, true],
    ['anything-but the value itself', { detail: { status: [{ 'anything-but': 'FAILED' }] } }, false],
    ['exists true on a present field', { detail: { redriveCount: [{ exists: true }] } }, true],
    ['exists false on an absent field', { detail: { cause: [{ exists: false }] } }, true],
    ['numeric range', { detail: { redriveCount: [{ numeric: ['>=', 0, '<', 1] }] } }, true],
    ['a null value matched by null', { detail: { error: [null] } }, true],
    ['an array in the event matches when any element does', { resources: [closed.detail.executionArn] }, true],
    ['equals-ignore-case', { source: [{ 'equals-ignore-case': 'AWS.STATES' }] }, true],
  ])('%s', (_name, pattern, expected) => {
    expect(matchesEventPattern(pattern, closed)).toBe(expected);
  });
});

/** The example event of AWS's "Comparison operators for use in event patterns" page, and fields its examples filter on. */
const ec2 = {
  version: '0',
  id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '111122223333',
  time: '2017-12-22T18:43:48Z',
  region: 'us-west-1',
  resources: ['arn:aws:ec2:us-west-1:123456789012:instance/i-1234567890abcdef0'],
  detail: {
    'instance-id': 'i-1234567890abcdef0',
    state: 'terminated',
    'c-count': 5,
    'd-count': 3,
    'x-limit': 301.8,
    sourceIPAddress: '10.0.0.255',
    FileName: 'photo.PNG',
    eventVersion: '',
    responseElements: null,
    'source-ip': '2001:db8::1',
    items: [
      { name: 'a', size: 1 },
      { name: 'b', size: 20 },
    ],
  },
};

describe('matchesEventPattern: the comparison operators AWS documents', () => {
  it.each([
    ['prefix with equals-ignore-case', { source: [{ prefix: { 'equals-ignore-case': 'AWS.E' } }] }, true],
    ['suffix', { detail: { FileName: [{ suffix: '.PNG' }] } }, true],
    ['suffix is case-sensitive', { detail: { FileName: [{ suffix: '.png' }] } }, false],
    ['suffix with equals-ignore-case', { detail: { FileName: [{ suffix: { 'equals-ignore-case': '.png' } }] } }, true],
    ['anything-but a number', { detail: { 'c-count': [{ 'anything-but': 123 }] } }, true],
    ['anything-but a prefix', { detail: { state: [{ 'anything-but': { prefix: 'term' } }] } }, false],
    ['anything-but a suffix', { detail: { FileName: [{ 'anything-but': { suffix: '.txt' } }] } }, true],
    [
      'anything-but equals-ignore-case a list',
      { detail: { state: [{ 'anything-but': { 'equals-ignore-case': ['Stopped', 'TERMINATED'] } }] } },
      false,
    ],
    ['anything-but a wildcard', { detail: { FileName: [{ 'anything-but': { wildcard: '*.PNG' } }] } }, false],
    ['anything-but does not match a missing field', { detail: { missing: [{ 'anything-but': 'x' }] } }, false],
    ['numeric closed range', { detail: { 'c-count': [{ numeric: ['>', 0, '<=', 5] }] } }, true],
    ['numeric does not match a string', { detail: { state: [{ numeric: ['>', 0] }] } }, false],
    ['cidr (IPv4)', { detail: { sourceIPAddress: [{ cidr: '10.0.0.0/24' }] } }, true],
    ['cidr outside the range', { detail: { sourceIPAddress: [{ cidr: '10.0.1.0/24' }] } }, false],
    ['cidr (IPv6)', { detail: { 'source-ip': [{ cidr: '2001:db8::/32' }] } }, true],
    ['an empty string value', { detail: { eventVersion: [''] } }, true],
    ['wildcard', { resources: [{ wildcard: 'arn:aws:ec2:us-west-1:*:instance/*' }] }, true],
    ['wildcard that does not match', { resources: [{ wildcard: 'arn:aws:ec2:eu-west-1:*' }] }, false],
    [
      '$or: one alternative matches',
      { detail: { $or: [{ 'c-count': [{ numeric: ['>', 10] }] }, { 'd-count': [{ numeric: ['<', 10] }] }] } },
      true,
    ],
    [
      '$or: no alternative matches',
      { detail: { $or: [{ 'c-count': [{ numeric: ['>', 10] }] }, { 'x-limit': [{ numeric: ['=', 300] }] }] } },
      false,
    ],
    [
      '$or at the top level',
      { $or: [{ source: ['aws.s3'] }, { 'detail-type': ['EC2 Instance State-change Notification'] }] },
      true,
    ],
    [
      'an array of objects matches when one element matches the nested pattern',
      { detail: { items: { name: ['b'], size: [{ numeric: ['>', 10] }] } } },
      true,
    ],
    [
      'every field must match within the same element',
      { detail: { items: { name: ['a'], size: [{ numeric: ['>', 10] }] } } },
      false,
    ],
    ['exists false under a missing object', { detail: { missing: { field: [{ exists: false }] } } }, true],
    ['a literal or an absent field', { detail: { 'no-such': ['x', { exists: false }] } }, true],
  ])('%s', (_name, pattern, expected) => {
    expect(matchesEventPattern(pattern, ec2)).toBe(expected);
  });
});

describe('eventPatternProblem: what PutRule refuses', () => {
  it.each([
    ['a leaf that is not a list', { source: 'aws.ec2' }, '"source" must be an object or an array'],
    ['an unknown operator', { source: [{ begins: 'aws' }] }, 'Unrecognized match type begins at "source"'],
    [
      'exists that is not a boolean',
      { detail: { x: [{ exists: 'yes' }] } },
      'exists match pattern must be either true or false at "detail.x"',
    ],
    [
      'numeric with an odd list',
      { detail: { x: [{ numeric: ['>'] }] } },
      'Value of numeric must be an array of operator and number pairs at "detail.x"',
    ],
  ])('%s', (_name, pattern, problem) => {
    expect(eventPatternProblem(pattern)).toBe(problem);
  });

  it('accepts every pattern of the table above', () => {
    expect(
      eventPatternProblem({
        source: [{ prefix: { 'equals-ignore-case': 'AWS.E' } }],
        detail: { $or: [{ a: [1] }, { b: [{ cidr: '10.0.0.0/8' }] }] },
      }),
    ).toBeUndefined();
  });
});
