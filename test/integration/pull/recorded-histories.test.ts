/**
 * Histories recorded on AWS (test/fixtures/history/aws-recorded: GetExecutionHistory answers of real runs,
 * each file naming where it was recorded and what was filled in) pull and display without loss: the pulled
 * run's history is the recorded one, event for event and field for field (LambdaFunction* events, which
 * the engine itself never writes, included), `autosave history --events` lists every event, and the pull
 * warns that the function the failed state calls is not one this engine has. The console's run page and
 * `autosave history` say where the run came from; the page's Redrive is refused for a run closed more than 14
 * days ago, as RedriveExecution refuses it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import {
  DescribeExecutionCommand,
  DescribeStateMachineForExecutionCommand,
  GetExecutionHistoryCommand,
  SFNClient,
  type HistoryEvent,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../packages/local/src/cli/main';
import { captureTerminal } from '../../../packages/local/src/cli/output';
import { getFullHistory, pullRun } from '../../../packages/local/src/operations';
import { startCountedEngine, type CountedEngine } from './two-engines';

const DIR = new URL('../../fixtures/history/aws-recorded/', import.meta.url);

/** A recorded run: its two descriptions and its history's pages (dates in epoch milliseconds). */
interface RecordedRun {
  readonly source: Record<string, string>;
  readonly stateMachine: { name: string; definition: string; roleArn: string };
  readonly execution: {
    executionArn: string;
    name: string;
    status: string;
    startDate: number;
    stopDate: number;
    [field: string]: unknown;
  };
  readonly pages: { events: (Omit<HistoryEvent, 'timestamp'> & { timestamp: number })[] }[];
}

const recorded: [string, RecordedRun][] = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => [f, JSON.parse(readFileSync(new URL(f, DIR), 'utf8')) as RecordedRun]);

const withDates = (e: { timestamp: number }) => ({ ...e, timestamp: new Date(e.timestamp) });

/** AWS answering from a recording, a page per GetExecutionHistory call. */
class RecordedSource extends SFNClient {
  constructor(private readonly run: RecordedRun) {
    super({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 's' } });
  }
  override send(command: unknown): Promise<never> {
    const { execution, stateMachine, pages } = this.run;
    if (command instanceof DescribeExecutionCommand)
      return Promise.resolve({
        ...execution,
        startDate: new Date(execution.startDate),
        stopDate: new Date(execution.stopDate),
      } as never);
    if (command instanceof DescribeStateMachineForExecutionCommand) return Promise.resolve(stateMachine as never);
    if (command instanceof GetExecutionHistoryCommand) {
      const page = Number(command.input.nextToken ?? 0);
      return Promise.resolve({
        events: pages[page].events.map(withDates),
        ...(page + 1 < pages.length ? { nextToken: String(page + 1) } : {}),
      } as never);
    }
    return Promise.reject(new Error(`unexpected ${String(command)}`));
  }
}

let laptop: CountedEngine;
beforeAll(async () => {
  laptop = await startCountedEngine(undefined, { console: true });
});
afterAll(async () => {
  await laptop?.close();
});

describe.each(recorded)('%s', (_file, run) => {
  it('pulls with every event and field as recorded, and autosave history lists them all', async () => {
    const pulled = await pullRun(new RecordedSource(run), laptop.local.url, run.execution.executionArn);
    const events = run.pages.flatMap((p) => p.events);
    expect(pulled).toMatchObject({ status: run.execution.status, events: events.length });
    const localArn = pulled.executionArn;
    expect(await getFullHistory(laptop.sfn, localArn)).toEqual(events.map(withDates));
    if (run.execution.status === 'FAILED') {
      expect(pulled.failedState).toBe('Start');
      expect(pulled.warnings).toEqual([
        expect.stringContaining("invokes the Lambda function 'sfn-raise-exception', which this engine does not have"),
      ]);
    }
    const out = captureTerminal();
    let code: number;
    try {
      code = await main(['history', localArn, '--events', '--endpoint', laptop.local.url]);
    } finally {
      out.release();
    }
    expect(out.stderr).toBe('');
    expect(code).toBe(0);
    for (const e of events) expect(out.stdout).toMatch(new RegExp(`\\b${e.id}\\b.*${e.type}`));
    expect(out.stdout).toContain(
      `pulled from ${run.execution.executionArn} (account 111111111111, region us-east-1): events 1 to ${events.length} are its history there`,
    );

    const page = await (await fetch(`${laptop.local.url}/runs/${encodeURIComponent(localArn)}`)).text();
    expect(page).toContain(`data-pulled-from="${run.execution.executionArn}"`);
    expect(page).toContain('account 111111111111, region us-east-1');
    if (run.execution.status !== 'FAILED') return;
    // The page's Redrive asks RedriveExecution, which refuses a run that closed more than 14 days ago (this one, in 2023), as AWS does.
    expect(page).toContain(`action="/runs/${encodeURIComponent(localArn)}/redrive"`);
    const redriven = await fetch(`${laptop.local.url}/runs/${encodeURIComponent(localArn)}/redrive`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: laptop.local.url },
    });
    expect(redriven.status).toBe(409);
    expect(await redriven.text()).toContain(
      'ExecutionNotRedrivable: Execution cannot be redriven: Execution closed more than 14 days ago',
    );
  });
});
