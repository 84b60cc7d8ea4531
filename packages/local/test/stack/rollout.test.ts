/**
 * How an alias moves under a DeploymentPreference (AWS::StepFunctions::StateMachineAlias docs): CANARY
 * sends `Percentage` of starts to the new version for one `Interval`, then all; LINEAR adds `Percentage`
 * every `Interval`; ALL_AT_ONCE, or an alias with no version before, routes everything at once.
 */
import { describe, expect, it } from 'vitest';
import { aliasRouting, rolloutRoutes, type RolloutState } from '../../src/stack';

const v1 = 'arn:aws:states:us-east-1:123456789012:stateMachine:m:1';
const v2 = 'arn:aws:states:us-east-1:123456789012:stateMachine:m:2';
const minutes = (n: number) => n * 60_000;

describe('rolloutRoutes', () => {
  const canary: RolloutState = {
    from: v1,
    to: v2,
    type: 'CANARY',
    percentage: 10,
    intervalMinutes: 5,
    startedMillis: 0,
  };
  const linear: RolloutState = { ...canary, type: 'LINEAR', percentage: 25 };

  it.each([
    [
      canary,
      0,
      [
        [v2, 10],
        [v1, 90],
      ],
    ],
    [
      canary,
      minutes(4.9),
      [
        [v2, 10],
        [v1, 90],
      ],
    ],
    [canary, minutes(5), [[v2, 100]]],
    [
      linear,
      0,
      [
        [v2, 25],
        [v1, 75],
      ],
    ],
    [
      linear,
      minutes(5),
      [
        [v2, 50],
        [v1, 50],
      ],
    ],
    [
      linear,
      minutes(10),
      [
        [v2, 75],
        [v1, 25],
      ],
    ],
    [linear, minutes(15), [[v2, 100]]],
  ] as const)('%o after %i ms', (rollout, elapsed, expected) => {
    expect(rolloutRoutes(rollout, elapsed).map((r) => [r.stateMachineVersionArn, r.weight])).toEqual(expected);
  });
});

describe('aliasRouting', () => {
  it('takes a RoutingConfiguration as it is', () => {
    expect(
      aliasRouting({ RoutingConfiguration: [{ StateMachineVersionArn: v2, Weight: 100 }] }, [
        { stateMachineVersionArn: v1, weight: 100 },
      ]),
    ).toEqual({
      routes: [{ stateMachineVersionArn: v2, weight: 100 }],
    });
  });
  it('starts a canary from the version the alias routed to', () => {
    const plan = aliasRouting(
      { DeploymentPreference: { StateMachineVersionArn: v2, Type: 'CANARY', Percentage: 10, Interval: 5 } },
      [{ stateMachineVersionArn: v1, weight: 100 }],
    );
    expect(plan.routes).toEqual([
      { stateMachineVersionArn: v2, weight: 10 },
      { stateMachineVersionArn: v1, weight: 90 },
    ]);
    expect(plan.rollout).toMatchObject({ from: v1, to: v2, type: 'CANARY' });
  });
  it('routes everything at once to the first version (nothing to shift from) and for ALL_AT_ONCE', () => {
    const pref = { StateMachineVersionArn: v2, Type: 'LINEAR', Percentage: 10, Interval: 5 };
    expect(aliasRouting({ DeploymentPreference: pref }, undefined)).toEqual({
      routes: [{ stateMachineVersionArn: v2, weight: 100 }],
    });
    expect(
      aliasRouting({ DeploymentPreference: { ...pref, Type: 'ALL_AT_ONCE' } }, [
        { stateMachineVersionArn: v1, weight: 100 },
      ]),
    ).toEqual({ routes: [{ stateMachineVersionArn: v2, weight: 100 }] });
  });
});
