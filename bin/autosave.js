#!/usr/bin/env node
// The `autosave` command: runs the CLI bundle (bin/cli-bundle.js), built from the TypeScript sources when
// they changed, so that `npx autosave` needs no build step and no TypeScript is transpiled at start.
import { cliBundle } from './cli-bundle.js';

// The SDK (3.11xx) warns on every command that Node 20 support is ending; we pin versions that support it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// `autosave history <run> | head` closes the pipe early: stop quietly, as Unix tools do.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
const { main } = await import(await cliBundle());
process.exitCode = await main(process.argv.slice(2));
