/**
 * A distributed Map (ProcessorConfig.Mode DISTRIBUTED) as AWS records it in the parent's history
 * (localstack's AWS-validated snapshots: scenarios/test_base_scenarios test_map_state_config_distributed_*,
 * test_map_state_label, test_map_state_tolerated_failure_*, assign/test_reference_in_map_state): AWS runs
 * the iterations as child executions, so the parent shows MapStateStarted, MapRunStarted (its mapRunArn)
 * and MapRunSucceeded, and none of the iterations' events.
 */
import { describe, expect, it } from 'vitest';
import { jsonpath } from '../../packages/engine/test/support/engine-harness';
import { recordedEngine } from './support/recorded-run';

const engine = recordedEngine();
const processor = (states: object = { HandleItem: { Type: 'Pass', End: true } }) => ({
  ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
  StartAt: Object.keys(states)[0],
  States: states,
});

describe('distributed Map', () => {
  it('runs its items and records the map run, not the iterations', async () => {
    const def = jsonpath({
      MapState: { Type: 'Map', ItemProcessor: processor(), Next: 'Finish' },
      Finish: { Type: 'Succeed' },
    });
    const run = await engine.run(def, ['Hello', 'World']);
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: ['Hello', 'World'] });
    expect(run.events.map((e) => [e.type, e.id, e.previousEventId])).toEqual([
      ['ExecutionStarted', 1, 0],
      ['MapStateEntered', 2, 0],
      ['MapStateStarted', 3, 2],
      ['MapRunStarted', 4, 3],
      ['MapRunSucceeded', 5, 4],
      ['MapStateSucceeded', 6, 5],
      // Chained after MapRunStarted in every recording since Nov 2024 (test_map_state_config_distributed_items_path_from_previous,
      // test_map_state_nested_config_distributed, local_mocking test_map_state_lambda, ...); after MapRunSucceeded until Aug 2024.
      ['MapStateExited', 7, 4],
      ['SucceedStateEntered', 8, 7],
      ['SucceedStateExited', 9, 8],
      ['ExecutionSucceeded', 10, 9],
    ]);
    expect((run.events[3].mapRunStartedEventDetails as { mapRunArn: string }).mapRunArn).toMatch(
      /^arn:aws:states:[a-z0-9-]+:\d{12}:mapRun:[^/]+\/MapState:[0-9a-f-]{36}$/,
    );
    expect(run.events[2].mapStateStartedEventDetails).toEqual({ length: 2 });
  });

  it('its Label names the map run (test_map_state_label)', async () => {
    const def = jsonpath({ MapState: { Type: 'Map', Label: 'TestMap', ItemProcessor: processor(), End: true } });
    const run = await engine.run(def, ['Hello', 'World']);
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: ['Hello', 'World'] });
    const started = run.events.find((e) => e.type === 'MapRunStarted')?.mapRunStartedEventDetails as {
      mapRunArn: string;
    };
    expect(started.mapRunArn).toMatch(/:mapRun:[^/]+\/TestMap:[0-9a-f-]{36}$/);
  });

  it('a ToleratedFailureCountPath that is not a number fails after MapStateStarted', async () => {
    const def = jsonpath({
      MapState: {
        Type: 'Map',
        ItemsPath: '$.Items',
        ToleratedFailureCountPath: '$.ToleratedFailureCount',
        ItemProcessor: processor(),
        End: true,
      },
    });
    const run = await engine.run(def, { Items: [0], ToleratedFailureCount: 'NoNumber' });
    expect(run.types).toEqual(['ExecutionStarted', 'MapStateEntered', 'MapStateStarted', 'ExecutionFailed']);
    expect(run.outcome).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
  });

  it('a ToleratedFailurePercentagePath holding the text "1" is the number 1 (test_reference_in_map_state)', async () => {
    const def = jsonpath({
      Start: { Type: 'Pass', Assign: { pct: '1', count: '1' }, Result: { Values: [1, 2, 3] }, Next: 'MapState' },
      MapState: {
        Type: 'Map',
        ItemsPath: '$.Values',
        MaxConcurrency: 1,
        ToleratedFailurePercentagePath: '$pct',
        ToleratedFailureCountPath: '$count',
        ItemProcessor: processor(),
        End: true,
      },
    });
    const run = await engine.run(def, {});
    expect(run.outcome).toEqual({ status: 'SUCCEEDED', output: [1, 2, 3] });
    expect(run.types).toContain('MapRunSucceeded');
  });

  it('a fractional ToleratedFailurePercentage literal is accepted (test_map_state_tolerated_failure_values[percentage_literal])', async () => {
    const def = jsonpath({
      MapState: { Type: 'Map', ToleratedFailurePercentage: 0.5, ItemProcessor: processor(), End: true },
    });
    expect((await engine.run(def, [0])).outcome).toEqual({ status: 'SUCCEEDED', output: [0] });
  });

  it('a failing iteration fails the map run: MapRunFailed, MapStateFailed (the iteration stays out of the history)', async () => {
    const def = jsonpath({
      MapState: {
        Type: 'Map',
        ItemProcessor: processor({ Boom: { Type: 'Fail', Error: 'E', Cause: 'c' } }),
        End: true,
      },
    });
    const run = await engine.run(def, [0]);
    expect(run.types).toEqual([
      'ExecutionStarted',
      'MapStateEntered',
      'MapStateStarted',
      'MapRunStarted',
      'MapRunFailed',
      'MapStateFailed',
      'ExecutionFailed',
    ]);
    expect(run.outcome).toEqual({ status: 'FAILED', error: 'E', cause: 'c' });
  });
});
