import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEmailProvider, ToolRegistry } from '@autosave/runtime/tools';
import {
  EXAMPLE_TOOL_NAMES,
  calculatorTool,
  exampleTools,
  onboardingTools,
  readDocumentTool,
  searchWebTool,
} from '../../../../tools';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'autosave-tools-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("the example app's tools", () => {
  it('are exactly the names the construct is told at synth (EXAMPLE_TOOL_NAMES)', () => {
    const registry = new ToolRegistry(
      exampleTools({ emailProvider: new OutboxEmailProvider(join(dir, 'o')), actionsDir: join(dir, 'a') }),
    );
    expect(registry.names().sort()).toEqual([...EXAMPLE_TOOL_NAMES].sort());
  });

  it('refuse an unknown tool with the non-retryable InvalidStepInputError', () => {
    const registry = new ToolRegistry(
      exampleTools({ emailProvider: new OutboxEmailProvider(join(dir, 'o')), actionsDir: join(dir, 'a') }),
    );
    expect(() => registry.get('launch-rocket')).toThrow(expect.objectContaining({ name: 'InvalidStepInputError' }));
  });
});

describe('onboarding fakes', () => {
  it.each(['verify-site', 'create-accounts', 'request-irb-document', 'provision-edc-access', 'schedule-kickoff'])(
    '%s is deterministic, acts once per key and records the action',
    async (name) => {
      const actionsDir = join(dir, `fakes-${name}`);
      const tool = onboardingTools(actionsDir).find((t) => t.name === name)!;
      const first = await tool.execute({ siteId: 'site-4412' }, `site-4412:${name}`);
      expect(await tool.execute({ siteId: 'site-4412' }, `site-4412:${name}`)).toEqual(first);
      // A second instance (another process, a restart) computes the same result.
      const again = onboardingTools(join(dir, `fakes-${name}-other`)).find((t) => t.name === name)!;
      expect(await again.execute({ siteId: 'site-4412' }, 'other-key')).toEqual(first);
      expect(await tool.actions()).toEqual([{ tool: name, input: { siteId: 'site-4412' }, result: first }]);
      expect(await tool.reconcile(`site-4412:${name}`)).toEqual({ found: true, result: first });
      expect(await tool.reconcile('never-used')).toEqual({ found: false });
    },
  );

  it('verify-site rejects an unknown site with the non-retryable ToolRejectedError and records nothing', async () => {
    const tool = onboardingTools(join(dir, 'reject')).find((t) => t.name === 'verify-site')!;
    await expect(tool.execute({ siteId: 'invalid-7' }, 'k')).rejects.toMatchObject({ name: 'ToolRejectedError' });
    expect(await tool.actions()).toEqual([]);
  });

  it('refuses input without a siteId', async () => {
    const tool = onboardingTools(join(dir, 'noinput')).find((t) => t.name === 'create-accounts')!;
    await expect(tool.execute({} as never, 'k')).rejects.toMatchObject({ name: 'InvalidStepInputError' });
  });
});

describe('research tools', () => {
  it('search-web returns the same three results for the same query', async () => {
    const a = await searchWebTool.execute({ query: 'durable agents' }, 'k1');
    expect(a.results).toHaveLength(3);
    expect(await searchWebTool.execute({ query: 'durable agents' }, 'k2')).toEqual(a);
  });

  it('read-document returns a text of the requested size', async () => {
    const doc = await readDocumentTool.execute({ url: 'https://example.org/x', bytes: 300 * 1024 }, 'k');
    expect(Buffer.byteLength(doc.text)).toBe(300 * 1024);
  });

  it.each([
    ['(1200 * 0.15) + 40', 220],
    ['7 % 4', 3],
    ['2 * (3 + 4)', 14],
  ])('calculator evaluates %s = %s', async (expression, value) => {
    expect(await calculatorTool.execute({ expression }, 'k')).toEqual({ expression, value });
  });

  it.each(['$string(1)', 'process.exit()', '1 +', '1 / 0'])('calculator rejects %s', async (expression) => {
    await expect(calculatorTool.execute({ expression }, 'k')).rejects.toMatchObject({ name: 'ToolRejectedError' });
  });
});
