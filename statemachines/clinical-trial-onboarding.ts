import { days } from '@autosave/workflow/config';
import { approval, defineWorkflow, tool } from '@autosave/workflow';

/**
 * Onboards a clinical-trial site in seven steps: verify the site, create accounts, request the IRB
 * document, wait (up to 5 days) for the coordinator's approval, provision EDC access, email the welcome
 * pack, schedule the kickoff. A rejection or an expired approval tells the coordinator and ends the run.
 * Seed scenario: input `{"siteId": "site-4412", ...}` sends the welcome pack under key `site-4412:welcome`.
 */
export const clinicalTrialOnboarding = defineWorkflow({
  name: 'clinical-trial-onboarding',
  version: '1.0.0',
  description: 'Onboard a clinical-trial site, with the coordinator approving before access is granted',
  exampleInput: {
    siteId: 'site-4412',
    coordinatorEmail: 'coordinator@site-4412.example.org',
    siteName: 'Riverside Clinical Research',
  },
  steps: [
    tool('verify-site', {
      tool: 'verify-site',
      idempotencyKey: '{siteId}:verify-site',
      input: { siteId: '{siteId}' },
    }),
    tool('create-accounts', {
      tool: 'create-accounts',
      idempotencyKey: '{siteId}:create-accounts',
      input: { siteId: '{siteId}' },
    }),
    tool('request-irb-document', {
      tool: 'request-irb-document',
      idempotencyKey: '{siteId}:request-irb-document',
      input: { siteId: '{siteId}' },
    }),
    approval('coordinator-approval', {
      title: 'Approve {siteName} ({siteId}) for the trial',
      details: {
        siteId: '{siteId}',
        siteName: '{siteName}',
        // Whole results, not fields of them: a result over 100 KB arrives as a {$ref} with no fields.
        verification: '{steps.verify-site}',
        accounts: '{steps.create-accounts}',
        irbRequest: '{steps.request-irb-document}',
      },
      approvers: ['{coordinatorEmail}'],
      timeout: days(5),
      onRejected: 'notify-site-rejected',
      onTimeout: 'notify-approval-expired',
    }),
    tool('provision-edc-access', {
      tool: 'provision-edc-access',
      idempotencyKey: '{siteId}:provision-edc-access',
      input: { siteId: '{siteId}' },
    }),
    tool('email-welcome-pack', {
      tool: 'send-email',
      idempotencyKey: '{siteId}:welcome',
      input: {
        to: '{coordinatorEmail}',
        subject: 'Welcome to the trial, {siteName}',
        body: 'Your site {siteId} is onboarded: staff accounts and EDC access are ready. The kickoff invitation follows.',
      },
    }),
    tool('schedule-kickoff', {
      tool: 'schedule-kickoff',
      idempotencyKey: '{siteId}:schedule-kickoff',
      input: { siteId: '{siteId}' },
      end: true,
    }),
    // Declared paths of the approval: each tells the coordinator, then the run ends.
    tool('notify-site-rejected', {
      tool: 'send-email',
      idempotencyKey: '{siteId}:rejected',
      input: {
        to: '{coordinatorEmail}',
        subject: 'Onboarding of {siteName} stopped',
        body: 'The onboarding of site {siteId} was rejected by {steps.coordinator-approval.by}.',
      },
      end: true,
    }),
    tool('notify-approval-expired', {
      tool: 'send-email',
      idempotencyKey: '{siteId}:approval-expired',
      input: {
        to: '{coordinatorEmail}',
        subject: 'Onboarding of {siteName} is waiting for you',
        body: 'Nobody approved site {siteId} within 5 days, so its onboarding stopped. Start it again when ready.',
      },
      end: true,
    }),
  ],
});
