#!/usr/bin/env node
/**
 * Writes packages/engine/src/executor/aws-sdk-catalog.json: every AWS service an
 * `arn:aws:states:::aws-sdk:<service>:<action>` Task may name, with its API actions, so the engine
 * accepts exactly the SDK integrations AWS knows (and runs the ones it serves).
 *
 * The source is botocore's service models (Apache-2.0; `pip show botocore`): a model's `serviceId`,
 * lower-cased without spaces, is the name Step Functions uses (`CloudWatch Logs` -> `cloudwatchlogs`,
 * `SFN` -> `sfn`), which is the AWS SDK for Java v2's client name. Only names are taken (data, no code).
 *
 * Usage: node scripts/aws-sdk-catalog.mjs [<botocore data dir>]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const dataDir =
  process.argv[2] ??
  execFileSync(
    'python3',
    ['-c', 'import botocore, os; print(os.path.join(os.path.dirname(botocore.__file__), "data"))'],
    { encoding: 'utf8' },
  ).trim();
const version = execFileSync('python3', ['-c', 'import botocore; print(botocore.__version__)'], {
  encoding: 'utf8',
}).trim();

const services = {};
for (const dir of readdirSync(dataDir).sort()) {
  const versions = statSync(join(dataDir, dir)).isDirectory()
    ? readdirSync(join(dataDir, dir))
        .filter((v) => /^\d{4}-\d{2}-\d{2}$/.test(v))
        .sort()
    : [];
  if (versions.length === 0) continue;
  const base = join(dataDir, dir, versions[versions.length - 1], 'service-2.json');
  const text = existsSync(`${base}.gz`)
    ? gunzipSync(readFileSync(`${base}.gz`)).toString('utf8')
    : existsSync(base)
      ? readFileSync(base, 'utf8')
      : undefined;
  if (text === undefined) continue;
  const model = JSON.parse(text);
  const id = model.metadata?.serviceId;
  if (typeof id !== 'string') continue;
  services[id.toLowerCase().replace(/\s+/g, '')] = Object.keys(model.operations).sort().join(' ');
}

const out = {
  source: `botocore ${version} service models (Apache-2.0): serviceId lower-cased without spaces -> its operations`,
  services: Object.fromEntries(Object.entries(services).sort(([a], [b]) => (a < b ? -1 : 1))),
};
const target = new URL('../packages/engine/src/executor/aws-sdk-catalog.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(out, null, 0).replace(/","/g, '",\n"')}\n`);
console.log(
  `${Object.keys(services).length} services, ${Object.values(services).reduce((n, ops) => n + ops.split(' ').length, 0)} actions -> ${target.pathname}`,
);
