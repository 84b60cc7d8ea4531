/**
 * In the SES sandbox, SES authorizes `ses:SendEmail` against the identity of every recipient as well as
 * the sender's (a sandboxed account may only send to its own verified identities, and the IAM check names
 * them: "not authorized to perform ses:SendEmail on resource …:identity/<recipient>"). The senders'
 * grant covers the account's identities as recipients, and only with the configured From address.
 */
import { describe, expect, it } from 'vitest';
import { createIamEvaluator, resolveAwsDeployment, rolesOf, type CfnTemplate } from '../../local/src/cloud-assembly';
import { synthApp } from './synth-app';

const SENDER = 'autosave@trials.acme-health.org';
const RECIPIENT_IDENTITY = 'arn:aws:ses:us-east-1:123456789012:identity/coordinator@site-4412.org';

describe('SES sending in the sandbox', () => {
  it('the email senders may send to a verified recipient identity of the account, from the configured sender only', async () => {
    const template = synthApp({
      context: { 'autosave:emailIdentity': 'trials.acme-health.org' },
    }).template.toJSON() as CfnTemplate;
    const deploy = resolveAwsDeployment(template, { stackName: 'Autosave' });
    const iam = await createIamEvaluator();
    const senders = Object.entries(template.Resources)
      .filter(
        ([, r]) =>
          r.Type === 'AWS::Lambda::Function' &&
          (r.Properties as any).Environment?.Variables?.AUTOSAVE_EMAIL_PROVIDER === 'ses',
      )
      .map(([, r]) => (r.Properties as any).Role['Fn::GetAtt'][0] as string);
    expect(senders).toHaveLength(2);
    for (const logicalId of senders) {
      const role = rolesOf(deploy.resolver).find((r) => r.logicalId === logicalId)!;
      const send = (from: string) =>
        iam.evaluate(role.arn, role.policies, {
          action: 'ses:SendEmail',
          resource: RECIPIENT_IDENTITY,
          context: { 'ses:FromAddress': from },
        });
      expect((await send(SENDER)).allowed, logicalId).toBe(true);
      expect((await send('ceo@trials.acme-health.org')).allowed, `${logicalId} from another address`).toBe(false);
    }
  });
});
