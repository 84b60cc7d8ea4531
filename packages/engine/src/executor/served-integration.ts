/**
 * The shape of an optimized integration the engine serves on an emulated service (`arn:aws:states:::<service>:<action>`):
 * which actions and patterns it has, and how one attempt runs. Each integration is a module of its own
 * (sns-integration.ts, events-integration.ts, ...); served-integrations.ts lists them.
 */
import { randomUUID } from 'node:crypto';
import { StatesError } from '@autosave/workflow/errors';
import { ServiceFault, type ServicePorts, type TaskCallContext } from './service-ports';
import { sdkCause } from './service-responses';
import { exceptionName, failure, type TaskOutcome } from './task-outcome';
import type { IntegrationPattern } from './integration-catalog';

/** What one attempt of a served integration has to work with. */
export interface ServedCall {
  readonly ports: ServicePorts;
  /** The engine clock's time, for the results' `Date` headers. */
  readonly nowMs: number;
  readonly context: TaskCallContext;
}

/** An optimized integration the engine serves. */
export interface ServedIntegration {
  /** The service part of the resource ARN, also the history's `resourceType` (`sns`, `events`). */
  readonly service: string;
  /** Each action the engine serves (as the ARN spells it) with the patterns AWS offers for it. */
  readonly actions: Readonly<Record<string, readonly IntegrationPattern[]>>;
  /** Runs one attempt's call (`.waitForTaskToken`'s waiting is the Task state's). */
  run(call: ServedCall, action: string, args: unknown): Promise<TaskOutcome>;
}

/**
 * The outcome of a Task whose emulated service is not set up on this engine (an Engine built without its
 * port): `Local.IntegrationNotServed`, the cause saying how to serve it.
 */
export function notServed(what: string, how: string): TaskOutcome {
  return failure('Local.IntegrationNotServed', `The local engine has no ${what}: ${how}`);
}

/**
 * A port's rejection as an optimized integration's error: `<Prefix>.<Code>Exception` with the Java SDK v1
 * cause (`Topic does not exist (Service: AmazonSNS; Status Code: 404; Error Code: NotFound; ...)`).
 */
export function optimizedFault(prefix: string, javaService: string, err: unknown): TaskOutcome {
  if (err instanceof ServiceFault)
    return failure(`${prefix}.${exceptionName(err.code)}`, sdkCause(err.message, javaService, err.status, err.code));
  return failure(StatesError.TaskFailed, (err as Error)?.message ?? String(err));
}

/** A request id, as a service answer carries one. */
export const requestId = (): string => randomUUID();

/** The Task's arguments as an object (a non-object is taken as no arguments, which the service then refuses). */
export const argsObject = (args: unknown): Record<string, unknown> =>
  args !== null && typeof args === 'object' && !Array.isArray(args) ? { ...(args as Record<string, unknown>) } : {};
