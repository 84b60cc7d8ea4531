/**
 * Inspecting what a run did, in the console: a graph node or a timeline row opens the step (input, output, error,
 * every attempt); a model step shows each turn (prompt, text, tool calls, tokens, replayed or not); a tool step its
 * idempotency key and whether the ledger answered; the event history is a table with the state of each event,
 * filterable by type. Pages read over HTTP from a live engine, as a browser gets them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '@autosave/workflow/config';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocal, type LocalEngine } from '../../../packages/local/src/server';
import { contractRenewal, researchAgent } from '../../../statemachines/index';
import { exampleApp } from '../../fixtures/example-app';

let local: LocalEngine;
let dataDir: string;
let sfn: SFNClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'autosave-inspect-'));
  local = await startLocal({ ...(await exampleApp()), port: 0, dataDir, log: () => undefined });
  sfn = new SFNClient({ endpoint: local.url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  await local?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const machine = (name: string) => `arn:aws:states:${LOCAL_REGION}:123456789012:stateMachine:${name}:live`;

async function succeeded(workflow: string, name: string, input: unknown): Promise<string> {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn: machine(workflow), name, input: JSON.stringify(input) }),
  );
  await vi.waitFor(
    async () => expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('SUCCEEDED'),
    { timeout: 45_000, interval: 100 },
  );
  return executionArn!;
}

async function page(path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${local.url}${path}`);
  return { status: response.status, text: await response.text() };
}

const runPath = (arn: string) => `/runs/${encodeURIComponent(arn)}`;
/** The step numbers the run page's timeline links to, by state name, in timeline order. */
function stepLinks(runPage: string, arn: string): [string, number][] {
  const prefix = `${runPath(arn)}/steps/`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [...runPage.matchAll(new RegExp(`<td><a href="${prefix}(\\d+)">([^<]+)</a>`, 'g'))].map((m) => [
    m[2],
    Number(m[1]),
  ]);
}

describe('the console inspects a step', () => {
  it('an agent run: every timeline row and graph node opens its step; a model step shows its turn', async () => {
    const arn = await succeeded('research-agent', 'inspect-agent', researchAgent.exampleInput);
    const run = await page(runPath(arn));
    expect(run.status).toBe(200);
    const links = stepLinks(run.text, arn);
    expect(links.length).toBeGreaterThan(5);
    expect(links.map(([, n]) => n)).toEqual(links.map((_, i) => i + 1));
    // A graph node opens the state's latest entry.
    const lastResearch = Math.max(...links.filter(([name]) => name === 'research').map(([, n]) => n));
    expect(run.text).toContain(
      `<a href="${runPath(arn)}/steps/${lastResearch}" class="state-link"><g class="state status-done" data-state="research"`,
    );
    expect(run.text).toContain(`href="${runPath(arn)}/events"`);

    const firstTurn = await page(`${runPath(arn)}/steps/${links.find(([name]) => name === 'research')![1]}`);
    expect(firstTurn.status).toBe(200);
    expect(firstTurn.text).toContain('Model turn 0');
    expect(firstTurn.text).toMatch(/<pre class="prompt">[^<]*durable workflows avoid sending an email twice/);
    expect(firstTurn.text).toMatch(/<td>tokens<\/td><td>\d+ in, \d+ out<\/td>/);
    expect(firstTurn.text).toContain('made by the model');
    expect(firstTurn.text).toMatch(/<h2>Tool calls<\/h2><table class="tool-calls">.*<code>search-web<\/code>/s);
    expect(firstTurn.text).toMatch(/<tr data-attempt="1" data-outcome="succeeded">/);
    expect(firstTurn.text).toContain('<h2>Input</h2>');
    expect(firstTurn.text).toContain('<h2>Output</h2>');

    const lastTurn = await page(`${runPath(arn)}/steps/${lastResearch}`);
    expect(lastTurn.text).toMatch(/<pre class="model-text">[^<]+<\/pre>/);

    const tools = await page(`${runPath(arn)}/steps/${links.find(([name]) => name === 'research-tools')![1]}`);
    expect(tools.text).toMatch(/<h2>Calls<\/h2>.*<td>search-web<\/td><td>the tool ran<\/td>/s);
    expect(tools.text).toMatch(/<td>idempotency key<\/td><td><code>[^<]*:research:0:/);
  });

  it('a tool step says when the ledger answered instead of the tool', async () => {
    const input = { ...contractRenewal.exampleInput, contractId: 'C-inspect' };
    await succeeded('contract-renewal', 'inspect-first', input);
    const arn = await succeeded('contract-renewal', 'inspect-second', input);
    const run = await page(runPath(arn));
    const send = stepLinks(run.text, arn).find(([name]) => name === 'send-renewal-email')![1];
    const step = await page(`${runPath(arn)}/steps/${send}`);
    expect(step.text).toContain('<td><code>renewal:C-inspect:3</code></td>');
    expect(step.text).toContain(
      '<p class="ledger" data-source="replayed">the ledger answered: the tool did not run again</p>',
    );
  });

  it('the event history: every event with its state, filterable by type; unknown steps are 404', async () => {
    const input = { ...contractRenewal.exampleInput, contractId: 'C-events' };
    const arn = await succeeded('contract-renewal', 'inspect-events', input);
    const events = await page(`${runPath(arn)}/events`);
    expect(events.status).toBe(200);
    expect(events.text).toMatch(
      /<tr data-event="1" data-type="ExecutionStarted"><td>1<\/td><td class="at">[^<]+<\/td><td>ExecutionStarted<\/td><td><\/td>/,
    );
    expect(events.text).toMatch(
      /data-type="TaskSucceeded"><td>\d+<\/td><td class="at">[^<]+<\/td><td>TaskSucceeded<\/td><td>send-renewal-email<\/td>/,
    );
    const filtered = await page(`${runPath(arn)}/events?type=succeeded`);
    const types = [...filtered.text.matchAll(/data-type="(\w+)"/g)].map((m) => m[1]);
    expect(types.length).toBeGreaterThan(1);
    expect(types.every((t) => t.endsWith('Succeeded'))).toBe(true);
    expect((await page(`${runPath(arn)}/steps/999`)).status).toBe(404);
    expect((await page(`${runPath(arn)}/nothing`)).status).toBe(404);
  });
});
