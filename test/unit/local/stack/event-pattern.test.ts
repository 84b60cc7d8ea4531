/**
 * EventBridge content filtering as AWS documents it (EventBridge User Guide, "Creating event patterns"
 * and "Content filtering"), on the event Step Functions sends when a run closes.
 */
import { describe, expect, it } from 'vitest';
import { matchesEventPattern } from '../../../../packages/local/src/stack';

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
    ['the rule CDK synthesizes for closed runs', { source: ['aws.states'], 'detail-type': ['Step Functions Execution Status Change'], detail: { status: ['SUCCEEDED', 'FAILED'], stateMachineArn: [closed.detail.stateMachineArn] } }, true],
    ['a status the rule does not list', { detail: { status: ['SUCCEEDED'] } }, false],
    ['another state machine', { detail: { stateMachineArn: ['arn:aws:states:us-east-1:123456789012:stateMachine:other'] } }, false],
    ['a field the event lacks', { detail: { cause: ['x'] } }, false],
    ['prefix', { detail: { executionArn: [{ prefix: 'arn:aws:states:us-east-1:123456789012:execution:onboarding:' }] } }, true],
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
