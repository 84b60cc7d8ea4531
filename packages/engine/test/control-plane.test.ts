import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EngineHarness, jsonata } from './support/engine-harness';

const PASS = jsonata({ P: { Type: 'Pass', End: true } });
const PASS2 = jsonata({ Q: { Type: 'Pass', Output: { v: 2 }, End: true } });
const ROLE = 'arn:aws:iam::123456789012:role/test';
const ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:orders';

describe('state machine control plane', () => {
  let h: EngineHarness;
  beforeEach(async () => {
    h = await new EngineHarness().start();
  });
  afterEach(() => h.close());

  it('creates, describes and lists a state machine with the service shapes', async () => {
    const created = await h.call('CreateStateMachine', {
      name: 'orders',
      definition: JSON.stringify(PASS),
      roleArn: ROLE,
    });
    expect(created).toEqual({ stateMachineArn: ARN, creationDate: expect.any(Number) });
    const described = await h.call('DescribeStateMachine', { stateMachineArn: ARN });
    expect(described).toMatchObject({
      stateMachineArn: ARN,
      name: 'orders',
      status: 'ACTIVE',
      type: 'STANDARD',
      roleArn: ROLE,
      definition: JSON.stringify(PASS),
      loggingConfiguration: { level: 'OFF', includeExecutionData: false },
      revisionId: expect.any(String),
    });
    const listed = await h.call('ListStateMachines', {});
    expect(listed.stateMachines).toEqual([
      { stateMachineArn: ARN, name: 'orders', type: 'STANDARD', creationDate: created.creationDate },
    ]);
  });

  it('is idempotent for the same definition and refuses a different one with StateMachineAlreadyExists', async () => {
    const a = await h.call('CreateStateMachine', { name: 'orders', definition: JSON.stringify(PASS), roleArn: ROLE });
    const b = await h.call('CreateStateMachine', { name: 'orders', definition: JSON.stringify(PASS), roleArn: ROLE });
    expect(b).toEqual(a);
    await expect(
      h.call('CreateStateMachine', { name: 'orders', definition: JSON.stringify(PASS2), roleArn: ROLE }),
    ).rejects.toMatchObject({ name: 'StateMachineAlreadyExists' });
  });

  it.each([
    ['malformed JSON', '{"StartAt":'],
    ['a missing Next target', JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Pass', Next: 'Nope' } } })],
  ])('refuses %s with InvalidDefinition', async (_what, definition) => {
    await expect(h.call('CreateStateMachine', { name: 'bad', definition, roleArn: ROLE })).rejects.toMatchObject({
      name: 'InvalidDefinition',
    });
  });

  it.each(['has space', 'a/b', 'x'.repeat(81), 'semi;colon', ''])(
    'refuses the name %j with InvalidName',
    async (name) => {
      const err = await h
        .call('CreateStateMachine', { name, definition: JSON.stringify(PASS), roleArn: ROLE })
        .catch((e) => e);
      expect(['InvalidName', 'ValidationException']).toContain(err.name);
    },
  );

  it('answers unknown and malformed ARNs with StateMachineDoesNotExist and InvalidArn', async () => {
    await expect(h.call('DescribeStateMachine', { stateMachineArn: ARN })).rejects.toMatchObject({
      name: 'StateMachineDoesNotExist',
    });
    await expect(h.call('DescribeStateMachine', { stateMachineArn: 'not-an-arn' })).rejects.toMatchObject({
      name: 'InvalidArn',
    });
  });

  it('publishes numbered versions, never reusing numbers, and describes a version by its ARN', async () => {
    const created = await h.call('CreateStateMachine', {
      name: 'orders',
      definition: JSON.stringify(PASS),
      roleArn: ROLE,
      publish: true,
      versionDescription: 'first',
    });
    expect(created.stateMachineVersionArn).toBe(`${ARN}:1`);
    const again = await h.call('PublishStateMachineVersion', { stateMachineArn: ARN });
    expect(again.stateMachineVersionArn).toBe(`${ARN}:1`); // unchanged revision: the same version
    const updated = await h.call('UpdateStateMachine', {
      stateMachineArn: ARN,
      definition: JSON.stringify(PASS2),
      publish: true,
    });
    expect(updated.stateMachineVersionArn).toBe(`${ARN}:2`);
    const v1 = await h.call('DescribeStateMachine', { stateMachineArn: `${ARN}:1` });
    expect(v1).toMatchObject({ stateMachineArn: `${ARN}:1`, definition: JSON.stringify(PASS), description: 'first' });
    const versions = await h.call('ListStateMachineVersions', { stateMachineArn: ARN });
    expect(versions.stateMachineVersions.map((v: any) => v.stateMachineVersionArn)).toEqual([`${ARN}:2`, `${ARN}:1`]);
    await h.call('DeleteStateMachine', { stateMachineArn: `${ARN}:2` });
    await h.call('UpdateStateMachine', { stateMachineArn: ARN, definition: JSON.stringify(PASS) });
    const v3 = await h.call('PublishStateMachineVersion', { stateMachineArn: ARN });
    expect(v3.stateMachineVersionArn).toBe(`${ARN}:3`);
  });

  it('manages aliases with routing weights', async () => {
    await h.call('CreateStateMachine', {
      name: 'orders',
      definition: JSON.stringify(PASS),
      roleArn: ROLE,
      publish: true,
    });
    await h.call('UpdateStateMachine', { stateMachineArn: ARN, definition: JSON.stringify(PASS2), publish: true });
    const routing = [{ stateMachineVersionArn: `${ARN}:1`, weight: 100 }];
    const alias = await h.call('CreateStateMachineAlias', { name: 'live', routingConfiguration: routing });
    expect(alias.stateMachineAliasArn).toBe(`${ARN}:live`);
    expect(await h.call('CreateStateMachineAlias', { name: 'live', routingConfiguration: routing })).toEqual(alias);
    const split = [
      { stateMachineVersionArn: `${ARN}:1`, weight: 80 },
      { stateMachineVersionArn: `${ARN}:2`, weight: 20 },
    ];
    await h.call('UpdateStateMachineAlias', { stateMachineAliasArn: `${ARN}:live`, routingConfiguration: split });
    expect(await h.call('DescribeStateMachineAlias', { stateMachineAliasArn: `${ARN}:live` })).toMatchObject({
      name: 'live',
      routingConfiguration: split,
    });
    expect((await h.call('ListStateMachineAliases', { stateMachineArn: ARN })).stateMachineAliases).toHaveLength(1);
    await expect(
      h.call('UpdateStateMachineAlias', {
        stateMachineAliasArn: `${ARN}:live`,
        routingConfiguration: [{ stateMachineVersionArn: `${ARN}:1`, weight: 50 }],
      }),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(h.call('DeleteStateMachine', { stateMachineArn: `${ARN}:2` })).rejects.toMatchObject({
      name: 'ConflictException',
    });
    await h.call('DeleteStateMachineAlias', { stateMachineAliasArn: `${ARN}:live` });
    await expect(h.call('DescribeStateMachineAlias', { stateMachineAliasArn: `${ARN}:live` })).rejects.toMatchObject({
      name: 'ResourceNotFound',
    });
  });

  it('deletes a state machine', async () => {
    await h.call('CreateStateMachine', { name: 'orders', definition: JSON.stringify(PASS), roleArn: ROLE });
    expect(await h.call('DeleteStateMachine', { stateMachineArn: ARN })).toEqual({});
    await expect(h.call('DescribeStateMachine', { stateMachineArn: ARN })).rejects.toMatchObject({
      name: 'StateMachineDoesNotExist',
    });
  });

  it('paginates ListStateMachines with maxResults and nextToken', async () => {
    for (const n of ['a', 'b', 'c'])
      await h.call('CreateStateMachine', { name: n, definition: JSON.stringify(PASS), roleArn: ROLE });
    const first = await h.call('ListStateMachines', { maxResults: 2 });
    expect(first.stateMachines.map((s: any) => s.name)).toEqual(['a', 'b']);
    const second = await h.call('ListStateMachines', { maxResults: 2, nextToken: first.nextToken });
    expect(second.stateMachines.map((s: any) => s.name)).toEqual(['c']);
    expect(second.nextToken).toBeUndefined();
    await expect(h.call('ListStateMachines', { nextToken: 'garbage!' })).rejects.toMatchObject({
      name: 'InvalidToken',
    });
  });

  it('validates a definition with diagnostics naming the problem', async () => {
    expect(await h.call('ValidateStateMachineDefinition', { definition: JSON.stringify(PASS) })).toMatchObject({
      result: 'OK',
      diagnostics: [],
    });
    const bad = await h.call('ValidateStateMachineDefinition', {
      definition: JSON.stringify({ StartAt: 'A', States: { A: { Type: 'Pass', Next: 'Nope' } } }),
    });
    expect(bad.result).toBe('FAIL');
    expect(bad.diagnostics[0]).toMatchObject({
      severity: 'ERROR',
      code: expect.any(String),
      location: expect.stringContaining('/States/A'),
    });
  });

  it('answers an unknown operation with UnknownOperationException', async () => {
    await expect(h.call('DescribeMapRunNowhere', {})).rejects.toMatchObject({ name: 'UnknownOperationException' });
  });
});
