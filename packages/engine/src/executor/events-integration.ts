/**
 * `arn:aws:states:::events:putEvents` (and `.waitForTaskToken`) on the emulated EventBridge, as AWS
 * records it (localstack's AWS-validated snapshots, stepfunctions/v2/services/test_events_task_service):
 * a `Detail` given as JSON is sent as its text; every event's `resources` gain the state machine's and the
 * execution's ARNs; the result is `{Entries, FailedEntryCount}` without HTTP metadata; any failed entry
 * fails the Task with `EventBridge.FailedEntry` and that answer, as JSON, for cause (the other entries
 * were still put).
 */
import { argsObject, notServed, optimizedFault, type ServedIntegration } from './served-integration';

export const eventsIntegration: ServedIntegration = {
  service: 'events',
  actions: { putEvents: ['request', 'waitForTaskToken'] },
  async run({ ports, context }, _action, args) {
    if (!ports.eventbridge)
      return notServed(
        'EventBridge',
        'start it with the local services (autosave local), or pass integrations.eventbridge to the Engine',
      );
    const input = argsObject(args);
    const entries = Array.isArray(input.Entries) ? input.Entries : [];
    const sent = entries.map((entry: unknown) => {
      const e = argsObject(entry);
      if (e.Detail !== undefined && typeof e.Detail !== 'string') e.Detail = JSON.stringify(e.Detail);
      e.Resources = [...(Array.isArray(e.Resources) ? e.Resources : []), context.stateMachineArn, context.executionArn];
      return e;
    });
    try {
      const out = await ports.eventbridge.call('PutEvents', { ...input, Entries: sent }, context);
      const answer = { Entries: out.Entries, FailedEntryCount: out.FailedEntryCount };
      if (Number(out.FailedEntryCount) > 0)
        return { ok: false, error: 'EventBridge.FailedEntry', cause: JSON.stringify(answer) };
      return { ok: true, value: answer };
    } catch (err) {
      return optimizedFault('EventBridge', 'AmazonEventBridge', err);
    }
  },
};
