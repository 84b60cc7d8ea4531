#!/usr/bin/env node
// The `autosave` command. TypeScript sources run through tsx so that `npx autosave` needs no build step.
import { register } from 'tsx/esm/api';

process.env.AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING ??= '1';
register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
