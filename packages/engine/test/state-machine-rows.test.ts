/**
 * The store keeps the state machine rows it read (every StartExecution reads its machine's). These cases
 * pin that what a start, a describe or a publish sees is what the file holds after every write of the
 * machine: an update (a new revision), a deletion, a published version, and a write that failed and was
 * rolled back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EngineHarness, jsonata } from './support/engine-harness';

const ARN = 'arn:aws:states:us-east-1:123456789012:stateMachine:kept';
const answering = (v: number) => jsonata({ P: { Type: 'Pass', Output: { v }, End: true } });

describe('state machine rows the store keeps', () => {
  let h: EngineHarness;
  afterEach(() => h.close());

  it('starts a run on the definition an UpdateStateMachine stored, right after a run started on the one before', async () => {
    h = await new EngineHarness().start();
    await h.machine(answering(1), 'kept');
    expect(await h.output(await h.run(ARN))).toEqual({ v: 1 });
    const { revisionId } = await h.call('UpdateStateMachine', {
      stateMachineArn: ARN,
      definition: JSON.stringify(answering(2)),
    });
    expect(await h.output(await h.run(ARN))).toEqual({ v: 2 });
    expect(await h.call('DescribeStateMachine', { stateMachineArn: ARN })).toMatchObject({
      revisionId,
      definition: JSON.stringify(answering(2)),
    });
  });

  it('refuses a start on a machine deleted after a run started on it (StateMachineDoesNotExist)', async () => {
    h = await new EngineHarness().start();
    await h.machine(answering(1), 'kept');
    await h.run(ARN);
    await h.call('DeleteStateMachine', { stateMachineArn: ARN });
    await expect(h.call('StartExecution', { stateMachineArn: ARN })).rejects.toMatchObject({
      name: 'StateMachineDoesNotExist',
    });
  });

  it('numbers each published version one past the last, a start reading the machine between publications', async () => {
    h = await new EngineHarness().start();
    await h.machine(answering(1), 'kept', { publish: true });
    await h.run(ARN);
    const second = await h.call('UpdateStateMachine', {
      stateMachineArn: ARN,
      definition: JSON.stringify(answering(2)),
      publish: true,
    });
    await h.run(ARN);
    const third = await h.call('UpdateStateMachine', {
      stateMachineArn: ARN,
      definition: JSON.stringify(answering(3)),
      publish: true,
    });
    expect([second.stateMachineVersionArn, third.stateMachineVersionArn]).toEqual([`${ARN}:2`, `${ARN}:3`]);
    expect(await h.output(await h.run(`${ARN}:2`))).toEqual({ v: 2 });
  });

  it('leaves the machine as it was when an UpdateStateMachine fails after changing it (its publication refused): nothing of it is seen', async () => {
    h = await new EngineHarness().start();
    await h.machine(answering(1), 'kept', { publish: true, versionDescription: 'first' });
    const before = await h.call('DescribeStateMachine', { stateMachineArn: ARN });
    // The same revision published again with another description: ConflictException, after the row's update ran.
    await expect(
      h.call('UpdateStateMachine', {
        stateMachineArn: ARN,
        tracingConfiguration: { enabled: true },
        publish: true,
        versionDescription: 'second',
      }),
    ).rejects.toMatchObject({ name: 'ConflictException' });
    expect(await h.call('DescribeStateMachine', { stateMachineArn: ARN })).toEqual(before);
    await h.run(ARN);
    expect(await h.call('DescribeStateMachine', { stateMachineArn: ARN })).toEqual(before);
  });
});
