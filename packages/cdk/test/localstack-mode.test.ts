/**
 * LocalStack mode (`-c autosave:localstack=true`), tested on the synthesized template (LocalStack itself
 * cannot run here): no StateMachineVersion/StateMachineAlias resources (LocalStack Community's
 * CloudFormation has neither), definitions with their ARNs in place (it ignores DefinitionSubstitutions on
 * update), a custom resource that publishes a version and one that creates, then updates, the `live` alias
 * through the API, republishing when a pinned function's code changes; the SES sender verified.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readCloudAssembly, stackOf } from '../../local/src/cloud-assembly';
import { workflows } from '../../../statemachines';
import { synthAssembly } from './iam/code-changing-deploy';
import { synthApp } from './synth-app';

type Resource = { Type: string; Properties: Record<string, any> };
const LOCALSTACK = { 'autosave:localstack': 'true' };

const resourcesOf = (context: Record<string, unknown>): Record<string, Resource> =>
  synthApp({ context }).template.toJSON().Resources;
const ofType = (resources: Record<string, Resource>, type: string) =>
  Object.entries(resources).filter(([, r]) => r.Type === type);
/** The SDK call of a Custom::AWS resource for one event (`Create` or `Update`), as its provider will make it. */
const callOf = (r: Resource, event: 'Create' | 'Update'): string => JSON.stringify(r.Properties[event]);

describe('LocalStack mode: the synthesized template', () => {
  const resources = resourcesOf(LOCALSTACK);
  const machines = ofType(resources, 'AWS::StepFunctions::StateMachine');
  const customs = ofType(resources, 'Custom::AWS');

  it('has no state machine version or alias resource (LocalStack CloudFormation has neither)', () => {
    expect(machines).toHaveLength(workflows.length);
    expect(ofType(resources, 'AWS::StepFunctions::StateMachineVersion')).toEqual([]);
    expect(ofType(resources, 'AWS::StepFunctions::StateMachineAlias')).toEqual([]);
  });

  it('writes every definition with its ARNs in place: no DefinitionSubstitutions, no placeholder left', () => {
    for (const [id, m] of machines) {
      expect(m.Properties.DefinitionSubstitutions, id).toBeUndefined();
      const definition = JSON.stringify(m.Properties.DefinitionString);
      expect(definition, id).not.toMatch(/\$\{[A-Za-z]+\}/);
    }
    // The pinned Lambda versions are referenced inside the definition itself.
    const onboarding = machines.find(([, m]) => m.Properties.StateMachineName === 'clinical-trial-onboarding')![1];
    expect(JSON.stringify(onboarding.Properties.DefinitionString)).toMatch(
      /"Ref":"FunctionsApprovalRequestCurrentVersion[0-9A-Za-z]+"/,
    );
  });

  it.each(workflows.map((w) => [w.name]))(
    '%s: a version is published through the API and the live alias created, then updated, to route to it',
    (name) => {
      const [machineId] = machines.find(([, m]) => m.Properties.StateMachineName === name)!;
      const publish = customs.find(
        ([, r]) =>
          callOf(r, 'Create').includes('publishStateMachineVersion') &&
          callOf(r, 'Create').includes(`"Ref":"${machineId}"`),
      );
      expect(publish, 'publish custom resource').toBeDefined();
      const [publishId, publishResource] = publish!;
      expect(callOf(publishResource, 'Update')).toContain('publishStateMachineVersion');
      expect(callOf(publishResource, 'Create')).toMatch(
        new RegExp(`${name} \\S+ definition [0-9a-f]{12} code [0-9a-f]{12}`),
      );
      const alias = customs.find(
        ([, r]) =>
          callOf(r, 'Create').includes('createStateMachineAlias') && callOf(r, 'Create').includes(`"${publishId}"`),
      );
      expect(alias, 'alias custom resource').toBeDefined();
      const create = callOf(alias![1], 'Create');
      expect(create).toContain('\\"name\\":\\"live\\"');
      expect(create).toContain('stateMachineVersionArn');
      expect(create).toContain('\\"weight\\":100');
      const update = callOf(alias![1], 'Update');
      expect(update).toContain('updateStateMachineAlias');
      expect(update).toContain(`stateMachine:${name}:live`);
    },
  );

  it('verifies the SES sender when SES is configured (LocalStack refuses unverified senders)', () => {
    const withSes = ofType(
      resourcesOf({ ...LOCALSTACK, 'autosave:emailIdentity': 'trials.acme-health.org' }),
      'Custom::AWS',
    ).map(([, r]) => callOf(r, 'Create'));
    expect(
      withSes.filter((c) => c.includes('verifyEmailIdentity') && c.includes('autosave@trials.acme-health.org')),
    ).toHaveLength(1);
    expect(customs.map(([, r]) => callOf(r, 'Create')).filter((c) => c.includes('verifyEmailIdentity'))).toEqual([]);
  });

  it('passes both cdk-nag packs (the custom resource provider acknowledged as LocalStack-only)', () => {
    const app = synthApp({ context: { ...LOCALSTACK, 'autosave:emailIdentity': 'trials.acme-health.org' } });
    const findings = [app.nag, app.serverlessNag].flatMap((p) =>
      p.validateScope(app.app).violations.map((v) => v.ruleName),
    );
    expect(findings).toEqual([]);
  });

  it('is off by default: AWS deploys get CloudFormation versions and aliases, no custom resource', () => {
    const plain = resourcesOf({});
    expect(ofType(plain, 'Custom::AWS')).toEqual([]);
    expect(ofType(plain, 'AWS::StepFunctions::StateMachineAlias')).toHaveLength(workflows.length);
  });

  it('refuses a canary or linear rollout (no alias deployment preference through the API here)', () => {
    expect(() => synthApp({ context: { ...LOCALSTACK, 'autosave:rollout': 'canary' } })).toThrow(
      /autosave:localstack supports only autosave:rollout=all-at-once/,
    );
  });
});

describe('LocalStack mode: a code-changing redeploy', () => {
  it("publishes again: the publish call changes when only a pinned function's code changed", () => {
    const publishCalls = (deploy: 1 | 2) => {
      const dir = synthAssembly(deploy, { context: LOCALSTACK });
      try {
        const template = stackOf(readCloudAssembly(dir)).template as unknown as { Resources: Record<string, Resource> };
        return ofType(template.Resources, 'Custom::AWS')
          .filter(([, r]) => callOf(r, 'Create').includes('publishStateMachineVersion'))
          .map(([id, r]) => [id, callOf(r, 'Update')] as const);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const first = new Map(publishCalls(1));
    const second = new Map(publishCalls(2));
    expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [id, call] of second) expect(call, id).not.toBe(first.get(id));
  });
});
