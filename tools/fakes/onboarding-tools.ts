import { sha256Hex } from '@autosave/runtime/records';
import { ToolRejectedError } from '@autosave/runtime/tools';
import { RecordingFakeTool, type FakeToolSpec } from './recording-fake-tool';

/** Input shared by the onboarding tools. */
export interface SiteInput {
  readonly siteId: string;
  /** People to create accounts / EDC access for. @default DEFAULT_SITE_USERS */
  readonly users?: readonly string[];
  /** Kickoff time wanted (ISO-8601). */
  readonly startsAt?: string;
}

/** Users the fakes provision when the input names none. */
export const DEFAULT_SITE_USERS: readonly string[] = ['coordinator', 'investigator'];
/** Site ids starting with this are rejected by `verify-site` (to exercise the non-retryable path). */
export const REJECTED_SITE_PREFIX = 'invalid-';

const id = (prefix: string, ...parts: string[]): string => `${prefix}-${sha256Hex(parts.join('\u0000')).slice(0, 10)}`;
const siteSchema = { type: 'object', required: ['siteId'], properties: { siteId: { type: 'string' } } } as const;
const usersOf = (input: SiteInput): readonly string[] => input.users ?? DEFAULT_SITE_USERS;

const specs: FakeToolSpec<SiteInput, Record<string, unknown>>[] = [
  {
    name: 'verify-site',
    description: 'Checks a clinical-trial site against the site registry.',
    inputSchema: siteSchema,
    perform: (input) => {
      if (input.siteId.startsWith(REJECTED_SITE_PREFIX))
        throw new ToolRejectedError(`Site ${input.siteId} is not in the registry`);
      return { siteId: input.siteId, verified: true, registryId: id('REG', input.siteId) };
    },
  },
  {
    name: 'create-accounts',
    description: 'Creates portal accounts for the site staff.',
    inputSchema: siteSchema,
    perform: (input) => ({
      siteId: input.siteId,
      accounts: usersOf(input).map((user) => ({ user, accountId: id('acct', input.siteId, user) })),
    }),
  },
  {
    name: 'request-irb-document',
    description: "Requests the site's IRB approval document.",
    inputSchema: siteSchema,
    perform: (input) => ({ siteId: input.siteId, requestId: id('irb', input.siteId), status: 'requested' }),
  },
  {
    name: 'provision-edc-access',
    description: 'Grants the site staff access to the electronic data capture system.',
    inputSchema: siteSchema,
    perform: (input) => ({
      siteId: input.siteId,
      grants: usersOf(input).map((user) => ({ user, edcUserId: id('edc', input.siteId, user) })),
    }),
  },
  {
    name: 'schedule-kickoff',
    description: 'Schedules the site kickoff meeting.',
    inputSchema: siteSchema,
    perform: (input) => ({
      siteId: input.siteId,
      meetingId: id('mtg', input.siteId),
      startsAt: input.startsAt ?? null,
    }),
  },
];

/** The onboarding tools as deterministic recording fakes, recording under `actionsDir`. */
export function onboardingTools(actionsDir: string): RecordingFakeTool<SiteInput, Record<string, unknown>>[] {
  return specs.map((spec) => new RecordingFakeTool(spec, actionsDir));
}
