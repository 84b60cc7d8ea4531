#!/usr/bin/env node
// The `autosave` command: runs the CLI bundle (bin/cli-bundle.js), built from the TypeScript sources when
// they changed, so that `npx autosave` needs no build step and no TypeScript is transpiled at start.
import { cliBundle } from './cli-bundle.js';

const { runAsCommand } = await import(await cliBundle());
await runAsCommand(process.argv.slice(2));
