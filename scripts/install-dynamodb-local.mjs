#!/usr/bin/env node
// Installs AWS's own DynamoDB Local for the conditional-write test tier, at `npm ci` time (postinstall).
//
// Why not a dependency: the jar ships inside the `amplify-dynamodb-simulator` npm tarball, but installing
// that package pulls in the Amplify CLI core. So we fetch the one tarball through the ordinary npm client
// (the npm registry, nothing else), check it against the pinned integrity, and keep only `package/emulator`.
// Nothing is downloaded at test time: the tests only start the jar this step left behind.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = 'amplify-dynamodb-simulator@2.9.30';
const INTEGRITY = 'sha512-xTeeRLvzEfqyd5lh3bH4c0kHvSHHmmhD5ZDsHFKAQ5g2Zl6JqlFdutaQhCLHzxEp6Ry1o7TB6niIoXuQAnSewQ==';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the tests look for the jar (test/fixtures/runtime/dynamodb-local.ts reads the same path). */
const target = join(root, 'node_modules', '.cache', 'dynamodb-local');

if (existsSync(join(target, 'DynamoDBLocal.jar'))) process.exit(0);

const work = mkdtempSync(join(tmpdir(), 'autosave-dynamodb-local-'));
try {
  const npm = process.env.npm_execpath;
  const packArgs = ['pack', PACKAGE, '--pack-destination', work, '--silent'];
  const out = npm
    ? execFileSync(process.execPath, [npm, ...packArgs], { cwd: work, encoding: 'utf8' })
    : execFileSync('npm', packArgs, { cwd: work, encoding: 'utf8' });
  const tarball = join(work, out.trim().split('\n').pop());
  const digest = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  if (digest !== INTEGRITY) throw new Error(`${PACKAGE}: integrity ${digest} is not the pinned ${INTEGRITY}`);
  execFileSync('tar', ['-xzf', tarball, '-C', work, 'package/emulator']);
  mkdirSync(dirname(target), { recursive: true });
  rmSync(target, { recursive: true, force: true });
  renameSync(join(work, 'package', 'emulator'), target);
  console.log(`DynamoDB Local installed for the tests in ${target}`);
} catch (error) {
  // An install without it still runs the engine; only the DynamoDB Local tier needs it, and it says so.
  console.warn(`DynamoDB Local was not installed (${error.message}); run \`node scripts/install-dynamodb-local.mjs\`.`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
