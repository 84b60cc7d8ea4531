/** Where an approval stands. `RUN_CLOSED`: a decision came after the run had timed out or closed. */
export type ApprovalStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'RUN_CLOSED';

/** The decision sent to the waiting task with SendTaskSuccess. */
export interface ApprovalDecision {
  readonly approved: boolean;
  readonly by: string;
  /** ISO-8601. */
  readonly at: string;
  readonly comment?: string;
}

/** The approval-request Lambda's event (docs/architecture.md §2). */
export interface ApprovalRequestEvent {
  readonly workflow: string;
  readonly executionArn: string;
  readonly step: string;
  /** Never logged, never put in a URL. */
  readonly taskToken: string;
  readonly timeoutSeconds: number;
  /**
   * When the approval state was entered, on the engine's clock (`$states.context.State.EnteredTime`): the
   * link expires `timeoutSeconds` after it, when the wait does (under a virtual clock too).
   * @default the approval-request Lambda's clock
   */
  readonly requestedAt?: string;
  readonly title: string;
  readonly details: unknown;
  readonly approvers?: readonly string[];
}

/** An approval as stored (item `approval#<id>`). The task token stays in the table. */
export interface ApprovalRecord {
  readonly id: string;
  readonly workflow: string;
  readonly executionArn: string;
  readonly step: string;
  readonly title: string;
  readonly details: unknown;
  readonly approvers: readonly string[];
  readonly requestedAtMillis: number;
  readonly expiresAtSeconds: number;
  readonly status: ApprovalStatus;
  readonly decision?: ApprovalDecision;
}
