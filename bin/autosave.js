#!/usr/bin/env node
// The `autosave` command. TypeScript sources run through tsx so that `npx autosave` needs no build step.
import { register } from 'tsx/esm/api';

// The SDK (3.11xx) warns on every command that Node 20 support is ending; we pin versions that support it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// `autosave history <run> | head` closes the pipe early: stop quietly, as Unix tools do.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
