import type { Clock } from '@autosave/workflow/config';
import { DEFAULT_DLQ_NAME } from '@autosave/runtime/endpoints';
import type { Engine, RunImportHeader, WireHistoryEvent } from '@autosave/engine';
import {
  createLocalApiHandler,
  type ControllableClock,
  type HttpRequestHandler,
  type LocalApiServer,
} from '../api/server';
import { stepFunctionsService } from '../api/step-functions-service';
import { loadConsoleHandler } from '../api/console-mount';
import type { ExpressRunLog } from '../services/express-run-log';
import type { InProcessLambdaRunner } from '../services/lambda/lambda-runner';
import { APPROVAL_ENDPOINT_FUNCTION } from '../services/lambda/registry-functions';
import type { LocalIntegrations } from '../services/local-integrations';
import type { LocalSqs } from '../services/sqs/local-sqs';
import { sqsService } from '../services/sqs/sqs-service';
import type { StackMode } from '../stack';
import type { EngineClients } from './clients';
import type { StartLocalOptions } from './options';

/** The stack output the stack mode's console and CLI read the dead-letter queue from. */
export const STACK_DLQ_OUTPUT = 'DeadLetterQueueUrl';

/** Test seam: `AUTOSAVE_DEPLOY_CRASH_AFTER=<n>` SIGKILLs the engine once a deploy has applied n resources. */
function deployCrashPoint(): ((applied: number) => void) | undefined {
  const n = Number(process.env.AUTOSAVE_DEPLOY_CRASH_AFTER);
  if (!Number.isInteger(n) || n <= 0) return undefined;
  return (applied) => {
    if (applied >= n) process.kill(process.pid, 'SIGKILL');
  };
}

/** What the console and the startup lines say runs: the stack and its assembly. */
function stackLabel(stack: StackMode, origin: string | undefined): string {
  const s = stack.summary();
  return s
    ? `stack ${s.stackName} · assembly ${s.assemblyId}${s.complete ? '' : ' (deploy unfinished)'}${origin ? ` · ${origin}` : ''}`
    : 'stack mode';
}

/**
 * The full handler (Step Functions, SQS, the stack's services, the console, the approval pages, the stack's deploy
 * route), made once the integrations are up; bound only once the workflows are deployed.
 */
export async function fullHandler(boot: {
  readonly options: StartLocalOptions;
  readonly engine: Engine;
  readonly expressRuns: ExpressRunLog;
  readonly sqs: LocalSqs;
  readonly stack: StackMode | undefined;
  readonly lambdas: InProcessLambdaRunner;
  readonly integrations: LocalIntegrations;
  readonly clients: EngineClients;
  readonly api: LocalApiServer;
  readonly environment: NodeJS.ProcessEnv;
  readonly label: string | undefined;
  readonly virtualClock: ControllableClock | undefined;
  readonly clock: Clock;
}): Promise<HttpRequestHandler> {
  const { options, engine, expressRuns, sqs, stack, lambdas, integrations, clients, api, environment, label } = boot;
  const { virtualClock, clock } = boot;
  const { s3Client } = clients;
  const approvalFunction = (): string | undefined =>
    stack
      ? stack.functionUrlTarget()
      : lambdas.has(APPROVAL_ENDPOINT_FUNCTION)
        ? APPROVAL_ENDPOINT_FUNCTION
        : undefined;

  const consoleHandler =
    options.console === false
      ? undefined
      : loadConsoleHandler({
          sfnEndpoint: api.url,
          outboxDir: environment.AUTOSAVE_OUTBOX_DIR,
          services: {
            sns: integrations.sns,
            eventbridge: integrations.eventbridge,
            cloudwatch: integrations.cloudwatch,
            expressRuns,
          },
          ...(stack
            ? {
                dlqUrl: () => stack.output(STACK_DLQ_OUTPUT) ?? sqs.queueUrl(DEFAULT_DLQ_NAME),
                engineLabel: () => stackLabel(stack, options.stack?.origin),
              }
            : { engineLabel: () => label ?? 'in-process functions' }),
        });
  return createLocalApiHandler({
    services: [stepFunctionsService(engine), sqsService(sqs), ...(stack ? stack.services() : [])],
    mockedRun: (executionArn) => engine.mockedRun(executionArn),
    waitForExecution: (executionArn, waitMillis) => engine.describeWhenClosed(executionArn, waitMillis),
    // autosave pull: a run read from AWS (or another engine), whose remaining Tasks name functions these are checked against.
    importRun: async (header, lines) => {
      const events = (await import('../services/pulled-payloads')).withPayloadsStored(lines, () =>
        Promise.resolve(s3Client),
      );
      return engine.importRun(header as unknown as RunImportHeader, events as AsyncIterable<WireHistoryEvent>, {
        hasFunction: (name) => lambdas.has(name),
      });
    },
    importedRun: (executionArn) => engine.importedRun(executionArn),
    queryService: (await import('../services/sqs/sqs-query-service')).sqsQueryService(sqs),
    virtualClock,
    clock,
    console: consoleHandler,
    // In stack mode the Function URL comes with a deploy: looked up per request.
    approvals:
      stack || approvalFunction()
        ? async (event) => {
            const functionName = approvalFunction();
            if (!functionName) throw new Error('no function serves the approval pages');
            const result = await lambdas.invoke({ functionName, payload: event });
            if (result.functionError)
              throw Object.assign(new Error(`${functionName} failed`), { payload: result.payload });
            return result.payload;
          }
        : undefined,
    ...(stack
      ? {
          stack: {
            describe: () => stack.summary() ?? {},
            deploy: async (input: Record<string, unknown>) => {
              const dir = input.assemblyDir;
              if (typeof dir !== 'string' || dir === '')
                throw Object.assign(new Error('assemblyDir must name a cloud assembly directory'), {
                  name: 'ValidationException',
                });
              return stack.deploy(dir, {
                stackName: typeof input.stackName === 'string' ? input.stackName : undefined,
                afterResource: deployCrashPoint(),
              });
            },
          },
        }
      : {}),
  });
}
