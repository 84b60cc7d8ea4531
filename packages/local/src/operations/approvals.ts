import type { SFNClient } from '@aws-sdk/client-sfn';
import { ApprovalNotFoundError, ApprovalRefusedError } from './errors';
import { issuedApprovals, type PendingApproval } from './run-analysis';
import { loadRunDetails } from './run-details';
import { listRuns } from './runs';

/** A pending approval with the run it belongs to. */
export interface RunApproval extends PendingApproval {
  readonly runName: string;
  readonly executionArn: string;
  readonly workflow: string;
}

/** Every approval the running runs wait on, oldest first (read from their histories, §2 of the contracts). */
export async function listPendingApprovals(
  sfn: SFNClient,
  registryNames: readonly string[] = [],
): Promise<RunApproval[]> {
  const running = await listRuns(sfn, { status: 'RUNNING', limit: 1000 }, registryNames);
  const perRun = await Promise.all(
    running.map(async (r) => {
      const details = await loadRunDetails(sfn, r.executionArn, registryNames);
      return details.approvals.map((a) => ({
        ...a,
        runName: r.name,
        executionArn: r.executionArn,
        workflow: r.workflow,
      }));
    }),
  );
  return perRun.flat().sort((a, b) => a.since.getTime() - b.since.getTime());
}

/** Runs whose histories are read at a time while looking for one approval. */
const APPROVAL_SEARCH_BATCH = 10;

/**
 * The pending approval an id (or a run name, or a full link) names. A run name or ARN reads only that
 * run's history; an approval id or link reads the running runs' histories newest first, a batch at a time,
 * and stops at the batch that holds it (ids are unique), so deciding many approvals in a row from the
 * newest does not read every history for each.
 */
export async function findPendingApproval(
  sfn: SFNClient,
  ref: string,
  registryNames: readonly string[] = [],
): Promise<RunApproval> {
  const running = await listRuns(sfn, { status: 'RUNNING', limit: 1000 }, registryNames);
  const named = running.filter((r) => r.name === ref || r.executionArn === ref);
  const found: RunApproval[] = [];
  const candidates = named.length > 0 ? named : running;
  for (let i = 0; i < candidates.length; i += APPROVAL_SEARCH_BATCH) {
    const perRun = await Promise.all(
      candidates.slice(i, i + APPROVAL_SEARCH_BATCH).map(async (r) => {
        const details = await loadRunDetails(sfn, r.executionArn, registryNames);
        return details.approvals.map((a) => ({
          ...a,
          runName: r.name,
          executionArn: r.executionArn,
          workflow: r.workflow,
        }));
      }),
    );
    found.push(
      ...perRun
        .flat()
        .filter((a) => a.approvalId === ref || a.url === ref || a.runName === ref || a.executionArn === ref),
    );
    if (found.some((a) => a.approvalId === ref || a.url === ref)) break;
  }
  if (found.length === 1) return found[0];
  if (found.length > 1)
    throw new ApprovalNotFoundError(`'${ref}' matches ${found.length} pending approvals; give the approval id`);
  throw new ApprovalNotFoundError(`no pending approval '${ref}' (see \`autosave approvals\`)`);
}

/**
 * The approval an id, link or run names, waiting or already answered: a second decision on an answered one goes
 * to its link too, whose page says who decided and when (as the web page does), instead of "not found".
 * Answered approvals are looked for in the newest runs of any status, only once no pending one matches.
 */
export async function findApproval(
  sfn: SFNClient,
  ref: string,
  registryNames: readonly string[] = [],
): Promise<RunApproval> {
  try {
    return await findPendingApproval(sfn, ref, registryNames);
  } catch (err) {
    if (!(err instanceof ApprovalNotFoundError) || /matches \d+ pending/.test(err.message)) throw err;
    const runs = await listRuns(sfn, { limit: 1000 }, registryNames);
    const named = runs.filter((r) => r.name === ref || r.executionArn === ref);
    const candidates = named.length > 0 ? named : runs;
    for (let i = 0; i < candidates.length; i += APPROVAL_SEARCH_BATCH) {
      const perRun = await Promise.all(
        candidates.slice(i, i + APPROVAL_SEARCH_BATCH).map(async (r) => {
          const details = await loadRunDetails(sfn, r.executionArn, registryNames);
          return issuedApprovals(details.analysis).map((a) => ({
            ...a,
            runName: r.name,
            executionArn: r.executionArn,
            workflow: r.workflow,
          }));
        }),
      );
      // A run named: its latest link; an id or a link: that one.
      const match =
        named.length > 0 ? perRun.flat().at(-1) : perRun.flat().find((a) => a.approvalId === ref || a.url === ref);
      if (match) return match;
    }
    throw err;
  }
}

/** A decision, as the approval page's form sends it. */
export interface ApprovalDecision {
  readonly approve: boolean;
  /** Who decides. @default the first approver the workflow named (the endpoint's default) */
  readonly by?: string;
  readonly comment?: string;
}

/** What the approval endpoint answered. */
export interface ApprovalResponse {
  readonly status: number;
  /** The page's title or first heading, as a one-line summary. */
  readonly message: string;
}

/**
 * How much of a page its headline and first paragraph are looked for in: the tag patterns below backtrack
 * quadratically on a page of unclosed tags, so they read a bounded head of it (test/unit/redos.test.ts).
 */
const PAGE_READ_LIMIT = 8_192;

/** The text of a page's `<h1>` (else `<title>`), without tags: the approval pages say their result there. */
export function pageHeadline(whole: string): string {
  const page = whole.slice(0, PAGE_READ_LIMIT);
  return pageText(
    /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(page)?.[1] ??
      /<title[^>]*>([\s\S]*?)<\/title>/i.exec(page)?.[1] ??
      page.slice(0, 200),
  );
}

/** A page's headline and its first paragraph: a refusal says why there (who decided and when, for a used link). */
export function pageSummary(whole: string): string {
  const page = whole.slice(0, PAGE_READ_LIMIT);
  const headline = pageHeadline(page);
  const paragraph = /<p[^>]*>([\s\S]*?)<\/p>/i.exec(page)?.[1];
  return paragraph ? `${headline}: ${pageText(paragraph)}` : headline;
}

function pageText(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Sends a decision the way the approval page does: a form POST to the signed link (docs/architecture.md
 * §2). The endpoint checks the signature and expiry, makes the decision single-use and calls
 * SendTaskSuccess; a refusal (expired, forged, already decided) is thrown as {@link ApprovalRefusedError}.
 */
export async function submitApprovalDecision(url: string, decision: ApprovalDecision): Promise<ApprovalResponse> {
  const body = new URLSearchParams({
    decision: decision.approve ? 'approve' : 'reject',
    ...(decision.by ? { by: decision.by } : {}),
    ...(decision.comment ? { comment: decision.comment } : {}),
  });
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
    redirect: 'manual',
  });
  const text = await response.text();
  const message = pageHeadline(text) || response.statusText;
  if (response.status >= 400)
    throw new ApprovalRefusedError(
      `the approval endpoint answered ${response.status}: ${pageSummary(text) || response.statusText}`,
    );
  return { status: response.status, message };
}
