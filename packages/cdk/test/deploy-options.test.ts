import { describe, expect, it } from 'vitest';
import { resolveDeployOptions } from '../src/deploy-options';
import { createIamEvaluator, resolveAwsDeployment, rolesOf, type CfnTemplate } from '../../local/src/cloud-assembly';
import { synthApp } from './synth-app';

type Resources = Record<string, { Type: string; Properties: Record<string, any>; DeletionPolicy?: string }>;
const synth = (context: Record<string, unknown> = {}) => synthApp({ context });
const resourcesOf = (context: Record<string, unknown> = {}): Resources => synth(context).template.toJSON().Resources;
const ofType = (r: Resources, type: string) => Object.entries(r).filter(([, x]) => x.Type === type);
const fnNamed = (r: Resources, name: string) =>
  ofType(r, 'AWS::Lambda::Function').find(([, f]) => f.Properties.Description === `Autosave ${name}`)![1];

describe('Deploy options: email only through a configured, verified SES identity', () => {
  it('the default deploy sends no email: no function uses SES and no role may send', () => {
    const r = resourcesOf();
    for (const [, fn] of ofType(r, 'AWS::Lambda::Function'))
      expect(fn.Properties.Environment.Variables.AUTOSAVE_EMAIL_PROVIDER).toBeUndefined();
    const actions = ofType(r, 'AWS::IAM::Policy').flatMap(([, p]) =>
      p.Properties.PolicyDocument.Statement.flatMap((s: any) => [s.Action].flat()),
    );
    expect(actions.filter((a: string) => a.startsWith('ses:'))).toEqual([]);
  });

  it('with an identity, the email senders use SES from it and may send (the IAM simulator says so), the others may not', async () => {
    const template = synth({ 'autosave:emailIdentity': 'trials.acme-health.org' }).template.toJSON();
    const deploy = resolveAwsDeployment(template as CfnTemplate, { stackName: 'Autosave' });
    const iam = await createIamEvaluator();
    const identityArn = 'arn:aws:ses:us-east-1:123456789012:identity/trials.acme-health.org';
    for (const name of ['tool-step', 'approval-request', 'model-step', 'approval-endpoint']) {
      const fn = fnNamed(template.Resources, name);
      const sends = name === 'tool-step' || name === 'approval-request';
      expect(fn.Properties.Environment.Variables.AUTOSAVE_EMAIL_PROVIDER, name).toBe(sends ? 'ses' : undefined);
      if (sends)
        expect(fn.Properties.Environment.Variables.AUTOSAVE_EMAIL_FROM).toBe('autosave@trials.acme-health.org');
      const role = rolesOf(deploy.resolver).find((r) => r.logicalId === fn.Properties.Role['Fn::GetAtt'][0])!;
      const decision = await iam.evaluate(role.arn, role.policies, { action: 'ses:SendEmail', resource: identityArn });
      expect(decision.allowed, name).toBe(sends);
    }
  });

  it.each([
    [{ emailIdentity: 'example.com' }, /example\.\* domains cannot be verified/],
    [{ emailIdentity: 'mail.example.org' }, /cannot be verified/],
    [{ emailIdentity: 'acme.io', emailFrom: 'ops@example.net' }, /cannot be verified/],
    [{ emailIdentity: 'acme.io', emailFrom: 'ops@other.io' }, /not inside the SES identity/],
    [{ emailFrom: 'ops@acme.io' }, /needs autosave:emailIdentity/],
  ])('refuses at synth %o', (options, message) => {
    expect(() => resolveDeployOptions(options)).toThrow(message);
  });
});

describe('Deploy options: operations', () => {
  it('logs state machines at ERROR by default, ALL on request', () => {
    for (const [, sm] of ofType(resourcesOf(), 'AWS::StepFunctions::StateMachine'))
      expect(sm.Properties.LoggingConfiguration.Level).toBe('ERROR');
    for (const [, sm] of ofType(
      resourcesOf({ 'autosave:stateMachineLogLevel': 'ALL' }),
      'AWS::StepFunctions::StateMachine',
    )) {
      expect(sm.Properties.LoggingConfiguration.Level).toBe('ALL');
    }
  });

  it('reserves concurrency for the public approval endpoint when asked, and only for it', () => {
    expect(fnNamed(resourcesOf(), 'approval-endpoint').Properties.ReservedConcurrentExecutions).toBeUndefined();
    const r = resourcesOf({ 'autosave:approvalConcurrency': 20 });
    expect(fnNamed(r, 'approval-endpoint').Properties.ReservedConcurrentExecutions).toBe(20);
    for (const name of ['model-step', 'tool-step', 'run-monitor'])
      expect(fnNamed(r, name).Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('names state machines <stack>-<workflow> on request, so a retained machine of a destroyed stack does not block the next deploy', () => {
    const r = resourcesOf({ 'autosave:prefixStateMachineNames': 'true', 'autosave:stackName': 'AutosaveStaging' });
    const names = ofType(r, 'AWS::StepFunctions::StateMachine')
      .map(([, sm]) => sm.Properties.StateMachineName)
      .sort();
    expect(names).toEqual([
      'AutosaveStaging-clinical-trial-onboarding',
      'AutosaveStaging-contract-renewal',
      'AutosaveStaging-research-agent',
      'AutosaveStaging-support-triage',
    ]);
    const research = ofType(r, 'AWS::StepFunctions::StateMachine').find(([, sm]) =>
      sm.Properties.StateMachineName.endsWith('research-agent'),
    )![1];
    expect(JSON.stringify(research.Properties.DefinitionSubstitutions.WorkflowAliasArn)).toContain(
      ':stateMachine:AutosaveStaging-research-agent:live',
    );
  });
});
