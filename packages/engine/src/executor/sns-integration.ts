/**
 * `arn:aws:states:::sns:publish` (and `.waitForTaskToken`) on the emulated SNS, as AWS records it
 * (localstack's AWS-validated snapshots, stepfunctions/v2/services/test_sns_task_service): a `Message`
 * that is not a string is published as its JSON; the result is `MessageId` (and a FIFO topic's
 * `SequenceNumber`) with the query protocol's `SdkHttpMetadata`; an error is `SNS.<Code>Exception`
 * (`SNS.NotFoundException`, "Topic does not exist") with the Java SDK's cause.
 */
import { argsObject, notServed, optimizedFault, requestId, type ServedIntegration } from './served-integration';
import { responseMetadata } from './service-responses';

/** The XML body SNS answers Publish with: its length is the result's recorded `Content-Length` (294; 352 with a sequence number). */
function publishResponseXml(messageId: string, request: string, sequenceNumber?: string): string {
  return (
    '<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/">\n  <PublishResult>\n' +
    `    <MessageId>${messageId}</MessageId>\n` +
    (sequenceNumber !== undefined ? `    <SequenceNumber>${sequenceNumber}</SequenceNumber>\n` : '') +
    `  </PublishResult>\n  <ResponseMetadata>\n    <RequestId>${request}</RequestId>\n  </ResponseMetadata>\n</PublishResponse>\n`
  );
}

export const snsIntegration: ServedIntegration = {
  service: 'sns',
  actions: { publish: ['request', 'waitForTaskToken'] },
  async run({ ports, nowMs, context }, _action, args) {
    if (!ports.sns)
      return notServed(
        'SNS',
        'start it with the local services (autosave local), or pass integrations.sns to the Engine',
      );
    const input = argsObject(args);
    if (input.Message !== undefined && typeof input.Message !== 'string') input.Message = JSON.stringify(input.Message);
    try {
      const out = await ports.sns.call('Publish', input, context);
      const id = requestId();
      const sequence = typeof out.SequenceNumber === 'string' ? out.SequenceNumber : undefined;
      const body = publishResponseXml(String(out.MessageId), id, sequence);
      return {
        ok: true,
        value: {
          MessageId: out.MessageId,
          ...(sequence !== undefined ? { SequenceNumber: sequence } : {}),
          ...responseMetadata({ kind: 'xml', requestId: id, body, nowMs }),
        },
      };
    } catch (err) {
      return optimizedFault('SNS', 'AmazonSNS', err);
    }
  },
};
