import { SendTaskSuccessCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { DEFAULT_RECORD_TTL_SECONDS, systemClock, type Clock } from '@autosave/workflow/config';
import { InvalidStepInputError } from '@autosave/workflow/errors';
import { TTL_ATTRIBUTE, type RecordTable, type TableItem } from '../records';
import { MetricName, noMetrics, type RuntimeMetrics } from '../metrics';
import { decidedPage, deliveredPage, pendingPage, refusalPage, type ApprovalPage } from './approval-page';
import type { ApprovalDecision, ApprovalRecord, ApprovalRequestEvent, ApprovalStatus } from './approval-record';
import { approvalIdForToken, type ApprovalLinkSigner, type LinkVerification } from './link-signer';

/** Prefix of approval items in the runtime's table. */
export const APPROVAL_ID_PREFIX = 'approval#';
/** Longest comment kept with a decision. */
export const MAX_COMMENT_LENGTH = 2_000;
/** Longest approver name kept with a decision. */
export const MAX_APPROVER_LENGTH = 200;
/** How often {@link ApprovalService.settleBeforeTimeout} retries when a decision is undone under it. */
const SETTLE_ATTEMPTS = 5;
/** SendTaskSuccess errors meaning the run is no longer waiting on this token. */
const RUN_CLOSED_ERRORS = ['TaskTimedOut', 'TaskDoesNotExist', 'InvalidToken'];

/** What {@link ApprovalService.redeliverRecordedDecision} did. */
export type RedeliveryResult = 'delivered' | 'already-delivered' | 'nothing-to-deliver';

/** A link issued for an approval request. */
export interface IssuedApproval {
  readonly approvalId: string;
  readonly url: string;
  readonly expiresAtSeconds: number;
  /**
   * Whether the approvers were told: `sent`, `failed` (the notifier threw; the link is still issued and
   * recorded in the run's history, so the step does not fail), or `none` (no notifier, or not pending).
   */
  readonly notification: 'sent' | 'failed' | 'none';
}

/** Called once a link is issued (e.g. to email the approvers). Receives no task token. */
export type ApprovalNotifier = (approval: ApprovalRecord, url: string) => Promise<void>;

/** Options of {@link ApprovalService}. */
export interface ApprovalServiceOptions {
  readonly table: RecordTable;
  readonly signer: ApprovalLinkSigner;
  readonly sfn: SFNClient;
  /** Base of links, e.g. `https://xyz.lambda-url.us-east-1.on.aws` (no trailing slash). */
  readonly baseUrl: string;
  /** @default systemClock */
  readonly clock?: Clock;
  /** Kept after the link expires, for the audit trail. @default DEFAULT_RECORD_TTL_SECONDS */
  readonly ttlSeconds?: number;
  /** Reports ApprovalWaitSeconds. @default no metrics */
  readonly metrics?: RuntimeMetrics;
  /** Tells the approvers. @default nobody is told (the link is returned and logged) */
  readonly notify?: ApprovalNotifier;
  /**
   * Verifies a link again after re-reading the signing keys, once, when it did not verify with the
   * current ones (the key may have rotated since this process loaded it). @default no second try
   */
  readonly reverify?: (approvalId: string, sig: string | undefined, nowMillis: number) => Promise<LinkVerification>;
}

/** A decision submitted through the page. */
export interface DecisionForm {
  readonly decision?: string;
  readonly by?: string;
  readonly comment?: string;
}

/**
 * Human approvals over task tokens. The token is stored in the table and nowhere else; the approver gets
 * a signed link to a page, and only a POST from that page decides — once, enforced by a conditional write
 * — after which the decision goes to the waiting run with SendTaskSuccess.
 */
export class ApprovalService {
  private readonly clock: Clock;
  private readonly ttlSeconds: number;
  private readonly metrics: RuntimeMetrics;

  constructor(private readonly options: ApprovalServiceOptions) {
    this.clock = options.clock ?? systemClock;
    this.ttlSeconds = options.ttlSeconds ?? DEFAULT_RECORD_TTL_SECONDS;
    this.metrics = options.metrics ?? noMetrics;
  }

  /** The path and query of an approval's link. */
  linkPath(approvalId: string, expiresAtSeconds: number): string {
    return `/approvals/${approvalId}?sig=${encodeURIComponent(this.options.signer.sign(approvalId, expiresAtSeconds))}`;
  }

  /**
   * Stores the request and issues its link, expiring with the wait's timeout. Idempotent per task token:
   * a retried invocation finds the stored request and issues the same link.
   */
  async request(raw: unknown): Promise<IssuedApproval> {
    const event = parseRequest(raw);
    const approvalId = approvalIdForToken(event.taskToken);
    // The engine's time when the state was entered (its clock, virtual or not): the link expires when the wait does.
    const now = event.requestedAt !== undefined ? Date.parse(event.requestedAt) : this.clock.now();
    const record: ApprovalRecord = {
      id: approvalId,
      workflow: event.workflow,
      executionArn: event.executionArn,
      step: event.step,
      title: event.title,
      details: event.details ?? null,
      approvers: [...(event.approvers ?? [])],
      requestedAtMillis: now,
      expiresAtSeconds: Math.floor(now / 1000) + event.timeoutSeconds,
      status: 'PENDING',
    };
    const write = await this.options.table.putIfAbsent({
      ...toItem(record),
      taskToken: event.taskToken,
      [TTL_ATTRIBUTE]: record.expiresAtSeconds + this.ttlSeconds,
    });
    const stored = write.written ? record : fromItem(write.existing!);
    const url = this.options.baseUrl + this.linkPath(approvalId, stored.expiresAtSeconds);
    // Notify on every attempt while pending: a crash between the put and the notice must not lose it
    // (the notifier dedupes by approval id, e.g. the email key `approval:<id>`). A notice that fails does
    // not fail the step: the link is returned, so the run's history records it for the CLI and console.
    let notification: IssuedApproval['notification'] = 'none';
    if (stored.status === 'PENDING' && this.options.notify) {
      try {
        await this.options.notify(stored, url);
        notification = 'sent';
      } catch (error) {
        notification = 'failed';
        console.error(
          JSON.stringify({
            message: 'approval notification failed; the link is in the run history',
            approvalId,
            error: String((error as Error)?.name ?? error),
            cause: String((error as Error)?.message ?? ''),
          }),
        );
      }
    }
    return { approvalId, url, expiresAtSeconds: stored.expiresAtSeconds, notification };
  }

  /**
   * What a GET shows. Never decides anything (mail scanners prefetch links), but delivers a decision that
   * was recorded and never reached the run (a crash cut its delivery off), and says so.
   * @param nowMillis the time of the request on the engine's clock (a Function URL's `requestContext.timeEpoch`)
   */
  async view(approvalId: string, sig: string | undefined, nowMillis = this.clock.now()): Promise<ApprovalPage> {
    const checked = await this.check(approvalId, sig, nowMillis);
    if ('page' in checked) return (await this.deliverIfRecorded(approvalId, sig, nowMillis))?.page ?? checked.page;
    return pendingPage(checked.record, this.linkPath(approvalId, checked.record.expiresAtSeconds));
  }

  /**
   * A POST: records the decision once and sends it to the waiting run. On an approval already decided it
   * delivers the recorded decision if it never arrived (200, "delivered"), else says it was decided (409).
   * @param nowMillis the time of the request on the engine's clock
   */
  async decide(
    approvalId: string,
    sig: string | undefined,
    form: DecisionForm,
    nowMillis = this.clock.now(),
  ): Promise<ApprovalPage> {
    const checked = await this.check(approvalId, sig, nowMillis);
    if ('page' in checked) {
      const delivered = await this.deliverIfRecorded(approvalId, sig, nowMillis);
      // "Delivered" only to the approver who asked for that decision; a different one was not taken.
      const asked = form.decision === 'approve' ? true : form.decision === 'reject' ? false : undefined;
      return delivered && delivered.record.decision?.approved === asked ? delivered.page : checked.page;
    }
    const { record } = checked;
    if (form.decision !== 'approve' && form.decision !== 'reject') return this.view(approvalId, sig, nowMillis);
    const now = nowMillis;
    const decision: ApprovalDecision = {
      approved: form.decision === 'approve',
      by: (form.by?.trim() || record.approvers[0] || 'anonymous').slice(0, MAX_APPROVER_LENGTH),
      at: new Date(now).toISOString(),
      ...(form.comment?.trim() ? { comment: form.comment.trim().slice(0, MAX_COMMENT_LENGTH) } : {}),
    };
    const status: ApprovalStatus = decision.approved ? 'APPROVED' : 'REJECTED';
    // Single use: only the first POST moves PENDING to a decision (and not after the engine timed the wait out).
    const claimed = await this.setStatus(approvalId, 'PENDING', { status, decision });
    if (!claimed.written) {
      const existing = claimed.existing && fromItem(claimed.existing);
      return existing?.status === 'RUN_CLOSED'
        ? refusalPage('run-closed', existing)
        : refusalPage('already-decided', existing);
    }
    const taskToken = String((await this.options.table.get(APPROVAL_ID_PREFIX + approvalId))?.taskToken ?? '');
    try {
      await this.options.sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(decision) }));
    } catch (error) {
      const name = (error as Error).name;
      if (RUN_CLOSED_ERRORS.includes(name)) {
        // A redelivery that took the decision may be what closed the task: then the run has the decision.
        const closed = await this.setStatus(
          approvalId,
          status,
          { status: 'RUN_CLOSED' },
          'attribute_not_exists(redelivering)',
        );
        if (!closed.written) return decidedPage({ ...record, status, decision });
        return refusalPage('run-closed', { ...record, status: 'RUN_CLOSED', decision });
      }
      // Not delivered: undo, so the approver can try again — unless a redelivery has taken the decision
      // meanwhile (it may already have reached the run): then the decision stands and is being delivered.
      const undone = await this.setStatus(
        approvalId,
        status,
        { status: 'PENDING', decision: null },
        'attribute_not_exists(redelivering)',
      );
      if (undone.written) return refusalPage('unavailable', record);
      return decidedPage({ ...record, status, decision });
    }
    await this.setStatus(approvalId, status, { delivered: true });
    this.metrics.add(MetricName.ApprovalWaitSeconds, Math.max(0, (now - record.requestedAtMillis) / 1000));
    return decidedPage({ ...record, status, decision });
  }

  /**
   * Sends a recorded decision to the waiting task again. The decision is written before SendTaskSuccess, so
   * an attempt that dies between the two (an engine or Lambda crash) leaves the run waiting on a decision it
   * never got, and every later POST would only say "already decided". `delivered` is set once SendTaskSuccess
   * succeeded; until then a POST delivers the recorded decision again (harmless if it did arrive: SendTaskSuccess
   * on a closed task answers TaskTimedOut). It first marks the item `redelivering`: from then on the deciding
   * attempt may neither undo the decision nor call the run closed, since this delivery may be the one that landed.
   */
  async redeliverRecordedDecision(approvalId: string): Promise<RedeliveryResult> {
    const item = await this.options.table.get(APPROVAL_ID_PREFIX + approvalId);
    const record = item && fromItem(item);
    if (!item || item.delivered || !record?.decision || (record.status !== 'APPROVED' && record.status !== 'REJECTED'))
      return 'nothing-to-deliver';
    // Take the decision first: a deciding attempt whose SendTaskSuccess failed can no longer undo it, so a
    // decision this sends is never replaced by a different one. Then send what is recorded now.
    if (!(await this.setStatus(approvalId, record.status, { redelivering: true })).written) return 'nothing-to-deliver';
    const taken = await this.options.table.get(APPROVAL_ID_PREFIX + approvalId);
    if (!taken?.decision) return 'nothing-to-deliver';
    let result: RedeliveryResult = 'delivered';
    try {
      await this.options.sfn.send(
        new SendTaskSuccessCommand({
          taskToken: String(taken.taskToken ?? ''),
          output: JSON.stringify(taken.decision),
        }),
      );
    } catch (error) {
      if (!RUN_CLOSED_ERRORS.includes((error as Error).name)) throw error;
      // Closed: an earlier delivery arrived, or the engine took the decision when the wait timed out.
      result = 'already-delivered';
    }
    await this.setStatus(approvalId, record.status, { delivered: true });
    return result;
  }

  /**
   * Delivers every recorded decision that never reached its run (the local engine runs this at boot).
   * Resolves to how many were delivered now.
   */
  async redeliverAllRecordedDecisions(): Promise<number> {
    let delivered = 0;
    const undelivered = this.options.table.scan(APPROVAL_ID_PREFIX, {
      expression: '(#status = :approved OR #status = :rejected) AND attribute_not_exists(delivered)',
      names: { '#status': 'status' },
      values: { ':approved': 'APPROVED', ':rejected': 'REJECTED' },
    });
    for await (const item of undelivered) {
      if ((await this.redeliverRecordedDecision(item.id.slice(APPROVAL_ID_PREFIX.length))) === 'delivered')
        delivered += 1;
    }
    return delivered;
  }

  /**
   * For an engine about to time out the wait on `taskToken`: the decision recorded for it, which was made in
   * time and so is delivered instead (taken, so that no failed delivery can undo it); or undefined, after
   * which no decision is accepted any more (the approval is closed as timed out). One conditional write
   * decides which came first, so a decision and a timeout never both happen.
   */
  async settleBeforeTimeout(taskToken: string): Promise<ApprovalDecision | undefined> {
    const approvalId = approvalIdForToken(taskToken);
    // A deciding attempt may undo its decision meanwhile (its delivery failed): then ask again.
    for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
      const closed = await this.setStatus(approvalId, 'PENDING', { status: 'RUN_CLOSED' });
      if (closed.written) return undefined;
      const record = closed.existing && fromItem(closed.existing);
      if (
        !record?.decision ||
        (record.status !== 'APPROVED' && record.status !== 'REJECTED') ||
        closed.existing!.taskToken !== taskToken
      )
        return undefined;
      if ((await this.setStatus(approvalId, record.status, { redelivering: true })).written) return record.decision;
    }
    throw new Error(`approval ${approvalId} kept changing while its wait timed out`);
  }

  private async deliverIfRecorded(
    approvalId: string,
    sig: string | undefined,
    nowMillis: number,
  ): Promise<{ record: ApprovalRecord; page: ApprovalPage } | undefined> {
    const link = this.options.signer.verify(approvalId, sig, nowMillis);
    if (!link.valid && link.reason !== 'expired') return undefined;
    if ((await this.redeliverRecordedDecision(approvalId)) !== 'delivered') return undefined;
    const record = await this.get(approvalId);
    return record && { record, page: deliveredPage(record) };
  }

  /** The stored approval (without its token), if any. */
  async get(approvalId: string): Promise<ApprovalRecord | undefined> {
    const item = await this.options.table.get(APPROVAL_ID_PREFIX + approvalId);
    return item && fromItem(item);
  }

  private async check(
    approvalId: string,
    sig: string | undefined,
    nowMillis: number,
  ): Promise<{ record: ApprovalRecord } | { page: ApprovalPage }> {
    let link = this.options.signer.verify(approvalId, sig, nowMillis);
    if (!link.valid && link.reason === 'forged' && this.options.reverify)
      link = await this.options.reverify(approvalId, sig, nowMillis);
    if (!link.valid && link.reason !== 'expired') return { page: refusalPage('forged') };
    const record = await this.get(approvalId);
    if (!record) return { page: refusalPage('unknown') };
    if (record.status === 'RUN_CLOSED') return { page: refusalPage('run-closed', record) };
    if (record.status !== 'PENDING') return { page: refusalPage('already-decided', record) };
    if (!link.valid) return { page: refusalPage('expired', record) };
    return { record };
  }

  private setStatus(approvalId: string, from: ApprovalStatus, set: Record<string, unknown>, andAlso?: string) {
    return this.options.table.updateIf(APPROVAL_ID_PREFIX + approvalId, set, {
      expression: andAlso ? `#status = :from AND ${andAlso}` : '#status = :from',
      names: { '#status': 'status' },
      values: { ':from': from },
    });
  }
}

function parseRequest(raw: unknown): ApprovalRequestEvent {
  const e = raw as Partial<ApprovalRequestEvent> | null;
  if (
    !e ||
    typeof e.taskToken !== 'string' ||
    !e.taskToken ||
    typeof e.executionArn !== 'string' ||
    typeof e.step !== 'string'
  ) {
    throw new InvalidStepInputError(
      'An approval request needs {workflow, executionArn, step, taskToken, timeoutSeconds, title, details}',
    );
  }
  if (typeof e.timeoutSeconds !== 'number' || !(e.timeoutSeconds > 0)) {
    throw new InvalidStepInputError('An approval request needs a positive timeoutSeconds');
  }
  if (e.requestedAt !== undefined && (typeof e.requestedAt !== 'string' || Number.isNaN(Date.parse(e.requestedAt)))) {
    throw new InvalidStepInputError("An approval request's requestedAt must be an ISO-8601 time");
  }
  return { ...e, workflow: e.workflow ?? '', title: e.title ?? `Approve ${e.step}` } as ApprovalRequestEvent;
}

function toItem(record: ApprovalRecord): TableItem {
  return {
    id: APPROVAL_ID_PREFIX + record.id,
    workflow: record.workflow,
    executionArn: record.executionArn,
    step: record.step,
    title: record.title,
    details: JSON.stringify(record.details),
    approvers: [...record.approvers],
    requestedAt: record.requestedAtMillis,
    expiresAt: record.expiresAtSeconds,
    status: record.status,
  };
}

function fromItem(item: TableItem): ApprovalRecord {
  return {
    id: item.id.slice(APPROVAL_ID_PREFIX.length),
    workflow: String(item.workflow),
    executionArn: String(item.executionArn),
    step: String(item.step),
    title: String(item.title),
    details: JSON.parse(String(item.details ?? 'null')),
    approvers: (item.approvers as string[] | undefined) ?? [],
    requestedAtMillis: Number(item.requestedAt),
    expiresAtSeconds: Number(item.expiresAt),
    status: item.status as ApprovalStatus,
    ...(item.decision ? { decision: item.decision as ApprovalDecision } : {}),
  };
}
