import { describe, expect, it } from 'vitest';
import { parseStateMachineArn } from '../src/arns';
import { isValidResourceName } from '../src/names';

describe('resource names', () => {
  it.each(['run-1', 'Run_2.x', 'a'.repeat(80), 'ünïcode'])('accepts %j', (name) =>
    expect(isValidResourceName(name)).toBe(true),
  );
  it.each([
    '',
    'a'.repeat(81),
    'has space',
    'new\nline',
    'a?b',
    'a*b',
    'a<b',
    'a{b',
    'a[b',
    'a"b',
    'a#b',
    'a%b',
    'a\\b',
    'a^b',
    'a|b',
    'a~b',
    'a`b',
    'a$b',
    'a&b',
    'a,b',
    'a;b',
    'a:b',
    'a/b',
    'ctl\u0001',
  ])('refuses %j', (name) => expect(isValidResourceName(name)).toBe(false));
});

describe('parseStateMachineArn', () => {
  const base = 'arn:aws:states:us-east-1:123456789012:stateMachine:orders';
  it('tells state machines, versions and aliases apart', () => {
    expect(parseStateMachineArn(base)).toEqual({ kind: 'stateMachine', name: 'orders', stateMachineArn: base });
    expect(parseStateMachineArn(`${base}:7`)).toEqual({
      kind: 'version',
      name: 'orders',
      stateMachineArn: base,
      version: 7,
    });
    expect(parseStateMachineArn(`${base}:live`)).toEqual({
      kind: 'alias',
      name: 'orders',
      stateMachineArn: base,
      alias: 'live',
    });
  });
  it.each([
    '',
    'orders',
    'arn:aws:states:us-east-1:123456789012:execution:orders:x',
    'arn:aws:lambda:us-east-1:123456789012:function:f',
  ])('refuses %j with InvalidArn', (arn) => {
    expect(() => parseStateMachineArn(arn)).toThrow(expect.objectContaining({ name: 'InvalidArn' }));
  });
});
