/**
 * Task: one attempt at a time. An attempt is scheduled (its events, timers and token committed), then
 * launched by the kernel; its outcome — the integration's answer, a token's answer or a child run's close —
 * comes back as a signal. `.waitForTaskToken` and `.sync` attempts are `submitted` once their request went
 * out, and then wait at no cost.
 */
import { STATES_PAYLOAD_LIMIT_BYTES } from '@autosave/workflow/config';
import { StatesError } from '@autosave/workflow/errors';
import type { Phase, TimerSpec } from '../frame';
import { payloadDetails, payloadTextDetails } from '../history';
import { RECORDED_OUTCOME_RETRY_MILLIS, type StateModule, type Step } from '../step';
import type { TaskOutcome, TaskTarget } from '../task-integrations';
import { newTaskToken } from '../task-token';
import { getActivity } from '../../store';
import { StatesRuntimeError } from '../../dataflow';
import { mockedSubmission } from '../../mocks';
import { ENTER } from '../transition';

type TaskPhase = Extract<Phase, { kind: 'task' }>;
type TaskEvent = 'Scheduled' | 'Started' | 'Succeeded' | 'Failed' | 'TimedOut' | 'Submitted';

/** Event type names per Task flavour: the direct-ARN Lambda form writes LambdaFunction* events, an activity Activity* events. */
const eventType = (target: TaskTarget, what: TaskEvent): string =>
  target.service === 'lambda-function'
    ? `LambdaFunction${what}`
    : target.service === 'activity'
      ? `Activity${what}`
      : `Task${what}`;
/** The resource fields Task* events carry (LambdaFunction* and Activity* events carry none). */
const resourceOf = (target: TaskTarget): Record<string, unknown> =>
  target.service === 'lambda-function' || target.service === 'activity'
    ? {}
    : { resourceType: target.resourceType, resource: target.resource };

const targetOf = (step: Step): TaskTarget => step.state.task as TaskTarget;

/**
 * A Task's `resourceType`/`resource` in its events. Step Functions Local, whose feature mock configs are,
 * names a mocked `aws-sdk` Task `aws-sdk` and `<service>:<action>` (its recorded history in the README of
 * aws-samples/aws-stepfunctions-examples sam/app-local-testing-mock-config: `comprehend:detectSentiment`),
 * where AWS's real runs name it `aws-sdk:<service>` and `<action>`.
 */
function resourceOfStep(step: Step, target: TaskTarget): Record<string, unknown> {
  if (target.resourceType.startsWith('aws-sdk:') && step.services.mocked?.(step.run.exec.arn, step.frame.pos.state)) {
    return { resourceType: 'aws-sdk', resource: `${target.resourceType.slice('aws-sdk:'.length)}:${target.resource}` };
  }
  return resourceOf(target);
}

/** Schedules a new attempt: its arguments, timeouts, token and events; the kernel launches it after the commit. */
async function scheduleAttempt(step: Step): Promise<void> {
  const target = targetOf(step);
  if (target.service === 'activity') return scheduleActivityTask(step, target);
  const definition = step.state.definition;
  // A `.sync` Task has a token too: SendTaskSuccess/Failure with it ends the Task before its child run does
  // (recorded: test_sync_with_task_token).
  const token = target.pattern === 'waitForTaskToken' || target.pattern === 'sync' ? newTaskToken() : undefined;
  const scope = step.scope({ token });
  const args = await step.flow.effectiveInput(definition, scope);
  const { timeoutSeconds, heartbeatSeconds } = await step.flow.taskTimeouts(definition, scope);
  const { frame } = step;
  frame.pos.seq += 1;
  const now = step.now();
  const timers: TimerSpec[] = [];
  if (timeoutSeconds !== undefined) timers.push({ kind: 'task-timeout', dueMs: now + timeoutSeconds * 1000 });
  if (heartbeatSeconds !== undefined) timers.push({ kind: 'heartbeat', dueMs: now + heartbeatSeconds * 1000 });
  step.setPhase(
    {
      kind: 'task',
      args,
      ...(token ? { token } : {}),
      ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
      ...(heartbeatSeconds !== undefined ? { heartbeatSeconds } : {}),
    },
    timers,
  );
  if (token) step.batch.openToken(token, frame, frame.pos.seq);
  // Serialized once: the event's input and the invocation's payload.
  const argsJson = JSON.stringify(args ?? null);
  if (target.service === 'lambda-function') {
    step.event('LambdaFunctionScheduled', {
      resource: target.resource,
      ...payloadTextDetails('input', argsJson),
      ...(timeoutSeconds !== undefined ? { timeoutInSeconds: timeoutSeconds } : {}),
    });
    step.event('LambdaFunctionStarted');
  } else {
    step.event('TaskScheduled', {
      ...resourceOfStep(step, target),
      region: step.services.region,
      parameters: argsJson,
      ...(timeoutSeconds !== undefined ? { timeoutInSeconds: timeoutSeconds } : {}),
      ...(heartbeatSeconds !== undefined ? { heartbeatInSeconds: heartbeatSeconds } : {}),
    });
    step.event('TaskStarted', resourceOfStep(step, target));
  }
  step.fx.launches.push({ frame, seq: frame.pos.seq, target, args, argsJson });
}

/**
 * Schedules an activity task: queued for the activity's workers with a fresh token, in the same commit as
 * its `ActivityScheduled` event. `TimeoutSeconds` runs from here; `HeartbeatSeconds` from the moment a
 * worker takes the task ({@link taskState.onActivityStarted}). An activity that does not exist fails the
 * run with States.Runtime, nothing scheduled (recorded: test_activity_task_on_deleted).
 */
async function scheduleActivityTask(step: Step, target: TaskTarget): Promise<void> {
  const definition = step.state.definition;
  const scope = step.scope();
  const args = await step.flow.effectiveInput(definition, scope);
  const { timeoutSeconds, heartbeatSeconds } = await step.flow.taskTimeouts(definition, scope);
  if (!getActivity(step.services.store, target.resource))
    throw new StatesRuntimeError(`The activity ${target.resource} does not exist.`);
  const token = newTaskToken();
  const { frame } = step;
  frame.pos.seq += 1;
  const timers: TimerSpec[] =
    timeoutSeconds !== undefined ? [{ kind: 'task-timeout', dueMs: step.now() + timeoutSeconds * 1000 }] : [];
  step.setPhase(
    {
      kind: 'task',
      args,
      token,
      submitted: true,
      ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
      ...(heartbeatSeconds !== undefined ? { heartbeatSeconds } : {}),
    },
    timers,
  );
  step.batch.openToken(token, frame, frame.pos.seq);
  step.batch.queueActivityTask(token, target.resource, frame, JSON.stringify(args ?? null));
  step.event('ActivityScheduled', {
    resource: target.resource,
    ...payloadDetails('input', args),
    ...(timeoutSeconds !== undefined ? { timeoutInSeconds: timeoutSeconds } : {}),
    ...(heartbeatSeconds !== undefined ? { heartbeatInSeconds: heartbeatSeconds } : {}),
  });
  // Nothing is invoked: the launch only wakes the activity's waiting workers once the task is committed.
  step.fx.launches.push({ frame, seq: frame.pos.seq, target, args });
}

export const taskState: StateModule = {
  enter: scheduleAttempt,
  attempt: scheduleAttempt,

  relaunch(step) {
    const target = targetOf(step);
    const phase = step.frame.pos.phase as TaskPhase;
    step.batch.touch(step.frame);
    step.event(
      eventType(target, 'Started'),
      target.service === 'lambda-function' ? undefined : resourceOfStep(step, target),
    );
    step.fx.launches.push({ frame: step.frame, seq: step.frame.pos.seq, target, args: phase.args, replay: true });
  },

  async onTaskOutcome(step, { source, outcome, mocked }) {
    const target = targetOf(step);
    let phase = step.frame.pos.phase as TaskPhase;
    step.batch.touch(step.frame);
    if (mocked && target.pattern !== 'request') {
      // A mocked `.waitForTaskToken`/`.sync` answers with its final result at once. AWS's run of the real
      // call records TaskSubmitted, with the submitting call's response, before the outcome.
      const submitted = mockedSubmission(target.resourceType, target.resource, phase.args, outcome, step.now());
      step.event('TaskSubmitted', { ...resourceOfStep(step, target), ...payloadDetails('output', submitted) });
      step.frame.pos.phase = phase = { ...phase, submitted: true };
    }
    if (source !== 'invoke' && target.pattern !== 'request' && !phase.submitted) {
      // The child run (or the token) answered before the call that started it did: AWS records
      // TaskSubmitted first, so the answer waits for it.
      step.frame.pos.phase = { ...phase, early: outcome };
      return;
    }
    if (source === 'invoke' && target.pattern !== 'request' && outcome.ok && !mocked) {
      // The callback/child run is on its way; the task now waits for its token (or child) at no cost.
      step.event('TaskSubmitted', { ...resourceOfStep(step, target), ...payloadDetails('output', outcome.value) });
      const { early, ...waiting } = phase;
      step.frame.pos.phase = phase = { ...waiting, submitted: true };
      if (!early) return;
      outcome = early;
    }
    if (phase.token) step.batch.closeToken(phase.token);
    // The result's JSON text, serialized once (or not at all when the integration had it): its size, its event.
    const resultJson = outcome.ok ? (outcome.text ?? JSON.stringify(outcome.value ?? null)) : undefined;
    if (resultJson !== undefined && Buffer.byteLength(resultJson) > STATES_PAYLOAD_LIMIT_BYTES) {
      // The service fails the Task itself (not the state's output), naming the service or the function.
      const what = target.service === 'lambda-function' ? target.resource : target.resourceType;
      const cause = `The state/task '${what}' returned a result with a size exceeding the maximum number of bytes service limit.`;
      step.event(eventType(target, 'Failed'), {
        ...resourceOfStep(step, target),
        error: StatesError.DataLimitExceeded,
        cause,
      });
      await step.recover({ error: StatesError.DataLimitExceeded, cause, catchableByAll: true }, ENTER);
    } else if (!outcome.ok) {
      // Step Functions Local writes a mocked request-response failure as its error and cause alone (the same
      // README's TaskFailed events); a mocked callback's failure keeps the keys AWS records for the real one.
      const where = mocked && target.pattern === 'request' ? {} : resourceOfStep(step, target);
      step.event(eventType(target, 'Failed'), { ...where, error: outcome.error, cause: outcome.cause });
      await step.recover({ error: outcome.error, cause: outcome.cause }, ENTER);
    } else {
      step.event(eventType(target, 'Succeeded'), {
        ...resourceOfStep(step, target),
        ...payloadTextDetails('output', resultJson as string),
      });
      await step.guard(() => step.exit(outcome.value));
    }
    await step.drive();
  },

  onActivityStarted(step, { workerName }) {
    const phase = step.frame.pos.phase as TaskPhase;
    const { frame } = step;
    // The task's overall timeout stays where it was; the heartbeat clock starts now.
    const timeout = step.services.store.getTimer(step.run.exec.arn, frame.id, 'task-timeout');
    const timers: TimerSpec[] =
      timeout && timeout.seq === frame.pos.seq ? [{ kind: 'task-timeout', dueMs: timeout.due_ms }] : [];
    if (phase.heartbeatSeconds !== undefined)
      timers.push({ kind: 'heartbeat', dueMs: step.now() + phase.heartbeatSeconds * 1000 });
    step.setPhase({ ...phase, started: true }, timers);
    step.batch.takeActivityTask(phase.token as string);
    // AWS records the worker's name, and empty details for a worker that gave none (test_activity_task_no_worker_name).
    step.event('ActivityStarted', workerName !== undefined ? { workerName } : {});
  },

  async onTimer(step, timer) {
    const phase = step.frame.pos.phase;
    if ((timer !== 'task-timeout' && timer !== 'heartbeat') || phase.kind !== 'task') return false;
    const recorded = phase.token ? await recordedOutcome(step, phase.token) : undefined;
    if (recorded === 'unknown') {
      postponeTimer(step, timer);
      return true;
    }
    if (recorded) {
      // Decided in time, cut off before it reached the engine: the decision, not the timeout.
      await taskState.onTaskOutcome!(step, {
        kind: 'task-outcome',
        seq: step.frame.pos.seq,
        source: 'token',
        outcome: recorded,
      });
      return true;
    }
    const target = targetOf(step);
    // AWS records a heartbeat timeout as States.Timeout (test_heartbeat_timeout), while Catch and Retry may
    // name States.HeartbeatTimeout; either way the events carry the error only, and the error output Cause "".
    const error = StatesError.Timeout;
    if (phase.token) step.batch.closeToken(phase.token);
    step.batch.touch(step.frame);
    step.event(eventType(target, 'TimedOut'), { ...resourceOfStep(step, target), error });
    await step.recover(
      {
        error,
        cause: '',
        causeUnrecorded: true,
        ...(timer === 'heartbeat' ? { matchedAs: StatesError.HeartbeatTimeout } : {}),
      },
      ENTER,
    );
    await step.drive();
    return true;
  },
};

/** The outcome recorded outside the engine for `token`, or 'unknown' when it could not be asked. */
async function recordedOutcome(step: Step, token: string): Promise<TaskOutcome | undefined | 'unknown'> {
  const ask = step.services.recordedTaskOutcome;
  if (!ask) return undefined;
  try {
    return await ask(token);
  } catch (err) {
    console.error('autosave engine: could not ask for a recorded outcome before a timeout; asking again shortly', err);
    return 'unknown';
  }
}

/** Keeps the frame's timers, the one that fired moved {@link RECORDED_OUTCOME_RETRY_MILLIS} later. */
function postponeTimer(step: Step, fired: TimerSpec['kind']): void {
  const { store } = step.services;
  const now = step.now();
  step.frame.timers = (['task-timeout', 'heartbeat'] as const).flatMap((kind) => {
    const row = store.getTimer(step.run.exec.arn, step.frame.id, kind);
    return row ? [{ kind, dueMs: kind === fired ? now + RECORDED_OUTCOME_RETRY_MILLIS : row.due_ms }] : [];
  });
  step.fx.timersChanged = true;
  step.batch.touch(step.frame);
}
