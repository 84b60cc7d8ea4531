/**
 * Every `autosave <command> --help` explains the command: every flag it accepts (its own and the common ones,
 * `--endpoint` among them where it talks to an engine), each with a line saying what it does, and an example to
 * copy. Read from the same spec the parser uses, so a flag added to a command cannot be left out of its help.
 */
import { describe, expect, it } from 'vitest';
import { COMMON_OPTIONS } from '../../src/cli/args';
import { COMMANDS, main } from '../../src/cli/main';
import { captureTerminal } from '../../src/cli/output';

async function help(command: string): Promise<{ code: number; text: string }> {
  const out = captureTerminal();
  const log = console.log;
  let logged = '';
  console.log = (line: string) => void (logged += `${line}\n`);
  try {
    const code = await main([command, '--help']);
    return { code, text: out.stdout + logged };
  } finally {
    console.log = log;
    out.release();
  }
}

describe('autosave <command> --help', () => {
  it.each(Object.keys(COMMANDS))('%s lists every flag it accepts, what each does, and an example', async (name) => {
    const { spec } = await COMMANDS[name]();
    const { code, text } = await help(name);
    expect(code).toBe(0);
    expect(text).toMatch(new RegExp(`^usage: autosave ${name}\\b`, 'm'));
    const common = spec.common ?? (Object.keys(COMMON_OPTIONS) as (keyof typeof COMMON_OPTIONS)[]);
    for (const flag of [...Object.keys(spec.options), ...common]) {
      // The flag at the start of its line, followed by a description on the same line or the next.
      expect(text, `--${flag}`).toMatch(new RegExp(`^  (-\\w, )?--${flag}\\b.*(\\s{2}\\S|\\n {6,}\\S)`, 'm'));
    }
    expect(text).toMatch(new RegExp(`^examples?:\\n(  .*npx autosave ${name}\\b.*\\n?)+`, 'm'));
  });

  it('documents --endpoint with its scheme wherever a command talks to an engine', async () => {
    for (const name of ['start', 'runs', 'describe', 'history', 'approvals', 'approve', 'dlq', 'test-state']) {
      expect((await help(name)).text, name).toMatch(
        /^ {2}--endpoint <url> +the Step Functions endpoint, with its scheme \(http:\/\/127\.0\.0\.1:8083\)$/m,
      );
    }
  });
});
