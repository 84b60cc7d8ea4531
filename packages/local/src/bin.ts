#!/usr/bin/env node
// The installed package's `autosave` command (package.json "bin"): the built CLI, loaded by Node as it is.
import { runAsCommand } from './cli/main';

void runAsCommand(process.argv.slice(2));
