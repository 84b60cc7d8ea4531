#!/usr/bin/env node
// The `autosave` command. TypeScript sources run through tsx so that `npx autosave` needs no build step.
import { register } from 'tsx/esm/api';

process.env.AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING ??= '1';
// The variable the SDK (3.11xx) actually reads; without it every command prints a Node 22 warning.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
