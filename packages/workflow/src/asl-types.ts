/**
 * The slice of the Amazon States Language the compiler emits (JSONata query language only). Kept
 * loose where ASL is loose (Arguments and Output are any JSON with `{% %}` strings).
 */

/** Any JSON value. */
export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };

/** One entry of a state's `Retry` list. */
export interface AslRetrier {
  readonly ErrorEquals: readonly string[];
  readonly IntervalSeconds?: number;
  readonly MaxAttempts: number;
  readonly BackoffRate?: number;
  readonly MaxDelaySeconds?: number;
  readonly JitterStrategy?: 'FULL' | 'NONE';
}

/** One entry of a state's `Catch` list. */
export interface AslCatcher {
  readonly ErrorEquals: readonly string[];
  readonly Next: string;
  readonly Output?: Json;
}

/** How a state ends: go on to a named state, or end the execution. */
export type AslTransition = { readonly Next: string } | { readonly End: true };

interface AslStateBase {
  readonly Comment?: string;
}

/** A Task state (Lambda invoke, callback, or an SDK/service integration). */
export type AslTaskState = AslStateBase &
  AslTransition & {
    readonly Type: 'Task';
    readonly Resource: string;
    readonly Arguments: Json;
    readonly TimeoutSeconds?: number;
    readonly Output?: Json;
    readonly Retry: readonly AslRetrier[];
    readonly Catch?: readonly AslCatcher[];
  };

/** A Pass state. */
export type AslPassState = AslStateBase & AslTransition & { readonly Type: 'Pass'; readonly Output?: Json };

/** A Wait state: a fixed number of seconds or an absolute timestamp. */
export type AslWaitState = AslStateBase &
  AslTransition & { readonly Type: 'Wait'; readonly Seconds?: number | string; readonly Timestamp?: string };

/** One rule of a Choice state. */
export interface AslChoiceRule {
  readonly Condition: string;
  readonly Next: string;
}

/** A Choice state. */
export type AslChoiceState = AslStateBase & {
  readonly Type: 'Choice';
  readonly Choices: readonly AslChoiceRule[];
  readonly Default?: string;
};

/** A Succeed state. */
export type AslSucceedState = AslStateBase & { readonly Type: 'Succeed'; readonly Output?: Json };

/** Any state the compiler emits. (No Fail state: see docs/architecture.md §1.) */
export type AslState = AslTaskState | AslPassState | AslWaitState | AslChoiceState | AslSucceedState;

/** States by name, in flow order. */
export type AslStates = Record<string, AslState>;

/** A compiled state machine definition. */
export interface AslDefinition {
  readonly Comment: string;
  readonly QueryLanguage: 'JSONata';
  readonly StartAt: string;
  readonly States: AslStates;
}
