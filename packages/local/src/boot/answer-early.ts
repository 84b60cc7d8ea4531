import type { IncomingMessage } from 'node:http';
import type { Clock } from '@autosave/workflow/config';
import type { Engine } from '@autosave/engine';
import { createLocalApiHandler, type ControllableClock, type LocalApiServer } from '../api/server';
import { stepFunctionsService } from '../api/step-functions-service';
import type { LateBoundHandler } from './api';

/** The line a restart prints once the Step Functions API answers, before the functions and services are up. */
export const STEP_FUNCTIONS_ANSWERING = 'Step Functions API answering on';

/**
 * True for an SQS API call (`X-Amz-Target: AmazonSQS.<Operation>`, or a form-encoded POST: the query
 * protocol): after a restart the functions run before SQS is served (while the workflows deploy), and
 * their calls (a dead letter) wait for it instead of failing on a 503.
 */
function isSqsCall(req: IncomingMessage): boolean {
  if (req.method !== 'POST') return false;
  const target = req.headers['x-amz-target'];
  return typeof target === 'string'
    ? target.startsWith('AmazonSQS.')
    : String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
}

/** True for a Step Functions API call (AWS JSON protocol, `X-Amz-Target: AWSStepFunctions.<Operation>`). */
function isStepFunctionsCall(req: IncomingMessage): boolean {
  const target = req.headers['x-amz-target'];
  return req.method === 'POST' && typeof target === 'string' && target.startsWith('AWSStepFunctions.');
}

/**
 * On a restart, answers the Step Functions API from the store at once: right after the engine starts, before the
 * project loads and the functions and services start.
 */
export function answerStepFunctionsEarly(boot: {
  readonly registryPath: boolean;
  readonly engine: Engine;
  readonly late: LateBoundHandler;
  readonly api: LocalApiServer;
  readonly virtualClock: ControllableClock | undefined;
  readonly clock: Clock;
  readonly log: (line: string) => void;
}): void {
  const { registryPath, engine, late, api, virtualClock, clock, log } = boot;
  // A restart (the store has a state machine; the registry path, whose deploy changes nothing a running
  // run uses) answers the Step Functions API now; SQS calls wait for the rest, everything else answers
  // 503 (retryable) until ready. A first start answers once its workflows are deployed.
  const stepFunctionsOnly = createLocalApiHandler({
    services: [stepFunctionsService(engine)],
    mockedRun: (arn) => engine.mockedRun(arn),
    waitForExecution: (executionArn, waitMillis) => engine.describeWhenClosed(executionArn, waitMillis),
    virtualClock,
    clock,
  });
  if (registryPath && engine.hasStateMachines()) {
    late.bind((req, res) =>
      isStepFunctionsCall(req)
        ? stepFunctionsOnly(req, res)
        : isSqsCall(req)
          ? late.hold(req, res)
          : late.unavailable(req, res),
    );
    log(`${STEP_FUNCTIONS_ANSWERING} ${api.url} (runs resume once the functions and services are up)`);
  }
}
