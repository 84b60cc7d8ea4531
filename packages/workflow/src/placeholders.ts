import { LIVE_ALIAS_NAME, LOCAL_ACCOUNT_ID, LOCAL_REGION } from './config';

/**
 * The resource placeholders a compiled definition contains. infra/ fills them with CDK
 * `definitionSubstitutions` (pinned Lambda version ARNs, the workflow's `live` alias ARN); local/
 * fills them with {@link substitutePlaceholders} and {@link localPlaceholderValues}.
 */
export const PLACEHOLDERS = {
  /** The model-step Lambda (pinned version ARN on AWS). */
  ModelStepFunctionArn: { kind: 'lambda', functionName: 'model-step' },
  /** The tool-step Lambda (pinned version ARN on AWS). */
  ToolStepFunctionArn: { kind: 'lambda', functionName: 'tool-step' },
  /** The approval-request Lambda, invoked with `.waitForTaskToken`. */
  ApprovalRequestFunctionArn: { kind: 'lambda', functionName: 'approval-request' },
  /** The workflow's own `live` alias: continue-as-new starts the next generation through it. */
  WorkflowAliasArn: { kind: 'workflowAlias' },
} as const satisfies Record<string, { kind: 'lambda'; functionName: string } | { kind: 'workflowAlias' }>;

/** Name of a placeholder, e.g. `ModelStepFunctionArn`. */
export type PlaceholderName = keyof typeof PLACEHOLDERS;

/** Every placeholder name, in table order. */
export const PLACEHOLDER_NAMES = Object.keys(PLACEHOLDERS) as PlaceholderName[];

/** The text that stands for a placeholder in a definition: `${Name}`. */
export function placeholder(name: PlaceholderName): string {
  return '${' + name + '}';
}

/** Values for some or all placeholders. */
export type PlaceholderValues = Partial<Record<PlaceholderName, string>>;

const PLACEHOLDER_PATTERN = /\$\{([A-Za-z0-9_]+)\}/g;

function isPlaceholderName(name: string): name is PlaceholderName {
  return Object.prototype.hasOwnProperty.call(PLACEHOLDERS, name);
}

function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, fn)]));
  }
  return value;
}

/** The placeholders a definition uses, in table order (what a deployer must supply). */
export function placeholdersIn(asl: unknown): PlaceholderName[] {
  const used = new Set<string>();
  mapStrings(asl, (s) => {
    for (const m of s.matchAll(PLACEHOLDER_PATTERN)) used.add(m[1]);
    return s;
  });
  return PLACEHOLDER_NAMES.filter((n) => used.has(n));
}

/**
 * A copy of `asl` with every `${Name}` of {@link PLACEHOLDERS} replaced by its value, the way CDK's
 * `definitionSubstitutions` does on AWS. Other `${...}` text is left alone (it may be user text).
 * Throws when the definition uses a placeholder that `values` does not supply: a half-filled
 * definition would deploy and then fail on its first Task.
 */
export function substitutePlaceholders<T>(asl: T, values: PlaceholderValues): T {
  const missing = placeholdersIn(asl).filter((n) => values[n] === undefined);
  if (missing.length > 0) {
    throw new Error(`no value for placeholder${missing.length > 1 ? 's' : ''} ${missing.map(placeholder).join(', ')}`);
  }
  return mapStrings(asl, (s) =>
    s.replace(PLACEHOLDER_PATTERN, (whole, name: string) =>
      isPlaceholderName(name) ? (values[name] as string) : whole,
    ),
  ) as T;
}

/** Options of {@link localPlaceholderValues}. */
export interface LocalPlaceholderOptions {
  /** @default LOCAL_REGION */
  readonly region?: string;
  /** @default LOCAL_ACCOUNT_ID */
  readonly accountId?: string;
}

/**
 * The values the local engine uses: `arn:aws:lambda:<region>:<account>:function:autosave-<name>` for
 * each Lambda and `arn:aws:states:<region>:<account>:stateMachine:<workflow>:live` for the alias.
 */
export function localPlaceholderValues(
  workflowName: string,
  options: LocalPlaceholderOptions = {},
): Record<PlaceholderName, string> {
  const region = options.region ?? LOCAL_REGION;
  const account = options.accountId ?? LOCAL_ACCOUNT_ID;
  const entries = PLACEHOLDER_NAMES.map((name) => {
    const spec: { kind: string; functionName?: string } = PLACEHOLDERS[name];
    const value =
      spec.kind === 'lambda'
        ? `arn:aws:lambda:${region}:${account}:function:autosave-${spec.functionName}`
        : `arn:aws:states:${region}:${account}:stateMachine:${workflowName}:${LIVE_ALIAS_NAME}`;
    return [name, value] as const;
  });
  return Object.fromEntries(entries) as Record<PlaceholderName, string>;
}
