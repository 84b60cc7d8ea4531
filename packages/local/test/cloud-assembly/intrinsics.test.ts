import { describe, expect, it } from 'vitest';
import {
  IntrinsicResolutionError,
  TemplateResolver,
  substitute,
  type ResolutionContext,
  type CfnTemplate,
} from '../../src/cloud-assembly';

/** A context that names every value after what was asked: proves the context is pluggable. */
const echo: ResolutionContext = {
  ref: (id) => `ref:${id}`,
  getAtt: (id, attribute) => `att:${id}.${attribute}`,
  pseudo: (name) =>
    ({ 'AWS::Region': 'eu-west-1', 'AWS::AccountId': '111122223333', 'AWS::Partition': 'aws', 'AWS::StackName': 'S' })[
      name as string
    ],
};

const template = (properties: Record<string, unknown>, extra: Partial<CfnTemplate> = {}): CfnTemplate => ({
  Resources: { Thing: { Type: 'Test::Thing', Properties: properties }, Other: { Type: 'Test::Other' } },
  ...extra,
});
const resolve = (value: unknown, extra: Partial<CfnTemplate> = {}): unknown =>
  new TemplateResolver(template({ V: value }, extra), echo).property('Thing', 'V');

describe('TemplateResolver: intrinsic functions', () => {
  it.each([
    ['Ref of a resource', { Ref: 'Other' }, 'ref:Other'],
    ['Ref of a pseudo parameter', { Ref: 'AWS::Region' }, 'eu-west-1'],
    ['Fn::GetAtt (list form)', { 'Fn::GetAtt': ['Other', 'Arn'] }, 'att:Other.Arn'],
    ['Fn::GetAtt (string form)', { 'Fn::GetAtt': 'Other.Arn' }, 'att:Other.Arn'],
    ['Fn::Join', { 'Fn::Join': [':', ['arn', { Ref: 'AWS::Partition' }, { Ref: 'Other' }]] }, 'arn:aws:ref:Other'],
    [
      'Fn::Sub (string form)',
      { 'Fn::Sub': 'arn:${AWS::Partition}:x:${AWS::Region}:${Other}/${Other.Name}/${!Literal}' },
      'arn:aws:x:eu-west-1:ref:Other/att:Other.Name/${Literal}',
    ],
    [
      'Fn::Sub (list form)',
      { 'Fn::Sub': ['${A}-${AWS::AccountId}', { A: { Ref: 'Other' } }] },
      'ref:Other-111122223333',
    ],
    ['Fn::Select of Fn::Split', { 'Fn::Select': [1, { 'Fn::Split': ['/', 'a/b/c'] }] }, 'b'],
    ['Fn::If', { 'Fn::If': ['InEurope', 'yes', 'no'] }, 'yes'],
    ['Fn::Base64', { 'Fn::Base64': 'hi' }, 'aGk='],
    [
      'nested objects and lists',
      { a: [{ Ref: 'Other' }, 1], b: { c: { 'Fn::Join': ['', ['x', 'y']] } } },
      { a: ['ref:Other', 1], b: { c: 'xy' } },
    ],
  ])('%s', (_, value, expected) => {
    expect(
      resolve(value, { Conditions: { InEurope: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'eu-west-1'] } } }),
    ).toEqual(expected);
  });

  it('drops properties and list items that are Ref AWS::NoValue', () => {
    expect(resolve({ keep: 1, drop: { Ref: 'AWS::NoValue' }, list: ['a', { Ref: 'AWS::NoValue' }] })).toEqual({
      keep: 1,
      list: ['a'],
    });
  });

  it('evaluates conditions with Fn::And, Fn::Or, Fn::Not and Condition, and skips resources whose condition fails', () => {
    const t: CfnTemplate = {
      Conditions: {
        IsProd: { 'Fn::Equals': ['prod', { Ref: 'Env' }] },
        NotProd: { 'Fn::Not': [{ Condition: 'IsProd' }] },
        Either: { 'Fn::Or': [{ Condition: 'IsProd' }, { 'Fn::And': [{ Condition: 'NotProd' }, true] }] },
      },
      Parameters: { Env: { Type: 'String', Default: 'dev' } },
      Resources: { OnlyProd: { Type: 'Test::Thing', Condition: 'IsProd' }, Always: { Type: 'Test::Thing' } },
    };
    const r = new TemplateResolver(t, echo);
    expect([r.condition('IsProd'), r.condition('NotProd'), r.condition('Either')]).toEqual([false, true, true]);
    expect(r.logicalIds('Test::Thing')).toEqual(['Always']);
  });

  it('reads parameters from the context when it provides them', () => {
    const t: CfnTemplate = {
      Parameters: { Env: { Type: 'String', Default: 'dev' } },
      Resources: { T: { Type: 'X', Properties: { V: { Ref: 'Env' } } } },
    };
    expect(new TemplateResolver(t, { ...echo, parameter: () => 'prod' }).property('T', 'V')).toBe('prod');
    expect(new TemplateResolver(t, echo).property('T', 'V')).toBe('dev');
  });

  it.each([
    ['a Ref to an unknown resource', { Ref: 'Nope' }, /unknown resource or parameter "Nope"/],
    ['an unsupported function', { 'Fn::Transform': {} }, /Unsupported intrinsic function Fn::Transform/],
    ['an out-of-range Fn::Select', { 'Fn::Select': [5, ['a']] }, /out of range/],
    ['an unknown condition', { 'Fn::If': ['Missing', 1, 2] }, /No condition "Missing"/],
  ])('refuses %s with an IntrinsicResolutionError', (_, value, message) => {
    let error: unknown;
    try {
      resolve(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IntrinsicResolutionError);
    expect((error as Error).name).toBe('IntrinsicResolutionError');
    expect((error as Error).message).toMatch(message);
  });

  it('refuses a circular reference between properties', () => {
    const t: CfnTemplate = { Resources: { A: { Type: 'X', Properties: { V: { 'Fn::GetAtt': ['A', 'V'] } } } } };
    const loop: ResolutionContext = { ...echo, getAtt: (id, attribute, r) => r.property(id, attribute) };
    expect(() => new TemplateResolver(t, loop).property('A', 'V')).toThrow(/Circular reference through A.V/);
  });
});

describe('substitute: the ${...} rule of Fn::Sub and DefinitionSubstitutions', () => {
  it('replaces names, keeps ${!escaped} as a literal', () => {
    expect(substitute('${A} ${ B } ${!C}', (n) => n.toLowerCase())).toBe('a b ${C}');
  });
});
