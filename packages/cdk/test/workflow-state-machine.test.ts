import { describe, expect, it } from 'vitest';
import { defineWorkflow } from '@autosave/workflow';
import { deployOptionsFromContext, resolveDeployOptions } from '../src/deploy-options';
import { registeredFunctionSpecs, registeredWorkflowSpecs, toWorkflowSpec } from '../../../infra/registries';
import { contractRenewal, workflows } from '../../../statemachines';
import { synthApp } from './synth-app';

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;
const resourcesOf = (context: Record<string, unknown> = {}, extra: Parameters<typeof synthApp>[0] = {}): Resources =>
  synthApp({ context, ...extra }).template.toJSON().Resources;
const ofType = (resources: Resources, type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const machine = (resources: Resources, name: string) =>
  ofType(resources, 'AWS::StepFunctions::StateMachine').find(([, r]) => r.Properties.StateMachineName === name)!;
const versionOf = (resources: Resources, name: string) => {
  const [smId] = machine(resources, name);
  return ofType(resources, 'AWS::StepFunctions::StateMachineVersion').find(
    ([, r]) => r.Properties.StateMachineArn.Ref === smId,
  )!;
};
const aliasOf = (resources: Resources, name: string) => {
  const [versionId] = versionOf(resources, name);
  return ofType(resources, 'AWS::StepFunctions::StateMachineAlias').find(([, r]) =>
    JSON.stringify(r.Properties).includes(`"${versionId}"`),
  )!;
};

describe('WorkflowStateMachine: a deploy that changes code publishes a new version', () => {
  const base = resourcesOf();

  it('a new workflow version changes the published version description (hash of the definition), nothing else of the others', () => {
    const bumped = registeredWorkflowSpecs(
      workflows.map((w) => (w.name === contractRenewal.name ? defineWorkflow({ ...w, version: '1.0.1' }) : w)),
    );
    const after = resourcesOf({}, { workflows: bumped });
    const [idBefore, before] = versionOf(base, contractRenewal.name);
    const [idAfter, changed] = versionOf(after, contractRenewal.name);
    expect(idAfter).toBe(idBefore);
    expect(changed.Properties.Description).not.toBe(before.Properties.Description);
    expect(changed.Properties.Description).toMatch(/^contract-renewal 1\.0\.1 definition [0-9a-f]{12}$/);
    expect(versionOf(after, 'research-agent')[1].Properties.Description).toBe(
      versionOf(base, 'research-agent')[1].Properties.Description,
    );
  });

  it('changed function code or configuration makes a new Lambda version, and the definition pins the new one', () => {
    const functions = registeredFunctionSpecs().map((f) =>
      f.name === 'tool-step' ? { ...f, memoryMb: f.memoryMb * 2 } : f,
    );
    const after = resourcesOf({}, { functions });
    const pinned = (r: Resources) => machine(r, contractRenewal.name)[1].Properties.DefinitionSubstitutions;
    expect(pinned(after).ToolStepFunctionArn.Ref).not.toBe(pinned(base).ToolStepFunctionArn.Ref);
    expect(after[pinned(after).ToolStepFunctionArn.Ref].Type).toBe('AWS::Lambda::Version');
    // The model step did not change: same version, so the state machine only changes where it must.
    expect(pinned(after).ModelStepFunctionArn.Ref).toBe(pinned(base).ModelStepFunctionArn.Ref);
  });
});

describe('WorkflowStateMachine: gradual rollout of the live alias', () => {
  it.each([
    ['canary', 'CANARY'],
    ['linear', 'LINEAR'],
  ])('autosave:rollout=%s shifts the alias gradually and rolls back on the failed-runs alarm', (rollout, type) => {
    const resources = resourcesOf({
      'autosave:rollout': rollout,
      'autosave:rolloutPercentage': 20,
      'autosave:rolloutIntervalMinutes': 10,
    });
    for (const w of workflows) {
      const [versionId] = versionOf(resources, w.name);
      const [, alias] = aliasOf(resources, w.name);
      expect(alias.Properties.RoutingConfiguration).toBeUndefined();
      expect(alias.Properties.DeploymentPreference).toMatchObject({
        StateMachineVersionArn: { 'Fn::GetAtt': [versionId, 'Arn'] },
        Type: type,
        Percentage: 20,
        Interval: 10,
      });
      const [alarmRef] = alias.Properties.DeploymentPreference.Alarms;
      expect(resources[alarmRef.Ref].Type).toBe('AWS::CloudWatch::Alarm');
      expect(alarmRef.Ref).toContain('FailedRuns');
    }
  });

  it('refuses an unknown rollout kind, a non-numeric percentage and a retention CloudWatch does not offer', () => {
    expect(() => deployOptionsFromContext((k) => (k === 'autosave:rollout' ? 'blue-green' : undefined))).toThrow(
      /all-at-once, canary, linear/,
    );
    expect(() => deployOptionsFromContext((k) => (k === 'autosave:rolloutPercentage' ? 'ten' : undefined))).toThrow(
      /must be a number/,
    );
    expect(() => resolveDeployOptions({ logRetentionDays: 45 })).toThrow(/CloudWatch Logs retention/);
  });
});

describe('WorkflowStateMachine: EXPRESS workflows', () => {
  it('deploys an EXPRESS workflow as such and leaves it out of the closed-run rule (Express emits no status events)', () => {
    const express = toWorkflowSpec(defineWorkflow({ ...contractRenewal, name: 'renewal-express', type: 'EXPRESS' }));
    const resources = resourcesOf({}, { workflows: [...registeredWorkflowSpecs(), express] });
    const [smId, sm] = machine(resources, 'renewal-express');
    expect(sm.Properties.StateMachineType).toBe('EXPRESS');
    const [, rule] = ofType(resources, 'AWS::Events::Rule')[0];
    expect(JSON.stringify(rule.Properties.EventPattern)).not.toContain(smId);
    expect(rule.Properties.EventPattern.detail.stateMachineArn).toHaveLength(
      workflows.filter((w) => w.type !== 'EXPRESS').length,
    );
  });
});
