#!/usr/bin/env node
/**
 * Writes packages/engine/src/test-state/api-output-constraints.json (and api-output-shapes.json, see SHAPES_ONLY): the constraints (length and value
 * bounds, enum values, patterns) that the AWS service models put on the members of the API outputs a TestState
 * mock may stand in for, so `fieldValidationMode` checks them as AWS does ("Field 'MemorySize' is less than the
 * minimum value"). The AWS SDK for JavaScript's own schemas carry the members and their types but none of these
 * traits, hence this table.
 *
 * Patterns are written for RE2 (re2js, the engine's linear-time regex engine: a mocked value is the user's and
 * must not meet a backtracking matcher). The models' patterns are Java's: the few Java-only forms are rewritten
 * (`\p{ASCII}`, `\p{Print}`, `\uXXXX`), and a pattern that opens with a negative lookahead, which RE2 lacks,
 * becomes the rest of the pattern plus a `forbiddenPrefix` (`(?!^[0-9]+$)([a-zA-Z0-9-_]+)`: the value matches
 * `([a-zA-Z0-9-_]+)` and does not start with a match of `^[0-9]+$`). Any other pattern RE2 cannot compile is left
 * unchecked and listed in the table's `uncheckedPatterns`.
 *
 * The source is botocore's service models (Apache-2.0; `pip show botocore`), the same Smithy models the JS SDK is
 * generated from: for each service the engine checks, every structure reachable from an operation's output, and
 * for each of its members the traits of the member's target shape. Only data is taken, no code.
 *
 * Usage: node scripts/api-output-constraints.mjs [<botocore data dir>]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

const { RE2JS } = createRequire(new URL('../packages/engine/package.json', import.meta.url))('re2js');

/** Step Functions' service names (as mock-shape.ts knows them) -> botocore's folder. */
const SERVICES = {
  lambda: 'lambda',
  sfn: 'stepfunctions',
  dynamodb: 'dynamodb',
  sqs: 'sqs',
  s3: 's3',
  events: 'events',
  kms: 'kms',
  sns: 'sns',
};

/**
 * Services whose AWS SDK for JavaScript client the engine does not carry: their output shapes themselves (types,
 * required members, list and map members, the HTTP payload) are written too, to api-output-shapes.json, which
 * mock-shape.ts reads as the Smithy schemas a client would have given.
 */
const SHAPES_ONLY = ['sns'];

/**
 * Bounds where a recording shows the service checking against another value than the botocore model's, by
 * service and shape name. Lambda's MemorySize: TestState refused 10241 on 2025-12-03 ('exceeds the maximum
 * value', LocalStack's AWS-validated test_field_validation_mode[integer_more_than_maximum_allowed]) when the
 * public model had said 32,768 since 2025-12-01 (botocore c18b100b8): the service's copy keeps 10,240.
 */
const RECORDED_BOUNDS = { lambda: { MemorySize: { max: 10240 } } };

/** Java regex forms RE2 writes otherwise (java.util.regex.Pattern: POSIX classes, \\u escapes). */
const JAVA_TO_RE2 = [
  [/\\p\{ASCII\}/g, '[\\x00-\\x7F]'],
  [/\\p\{Print\}/g, '[\\x20-\\x7E]'],
  [/\\u([0-9A-Fa-f]{4})/g, '\\x{$1}'],
];

/** Patterns RE2 cannot compile, with why: reported in the table, never checked. */
const unchecked = new Map();

/** The index of the `)` closing the group opened at `open`, skipping escapes and character classes. */
function groupEnd(pattern, open) {
  let depth = 0;
  let inClass = false;
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/**
 * A pattern opening with a negative lookahead, `(?!X)Y`, `^(?!X)Y` or `(^(?!X))Y`, as `{ forbidden: X, rest: Y }`:
 * matched from the value's start, the lookahead says the value does not start with a match of X.
 */
function leadingLookahead(pattern) {
  const wrapped = pattern.startsWith('(^(?!');
  const start = wrapped ? 2 : pattern.startsWith('^(?!') ? 1 : pattern.startsWith('(?!') ? 0 : -1;
  if (start < 0) return undefined;
  const end = groupEnd(pattern, start);
  if (end < 0 || (wrapped && pattern[end + 1] !== ')')) return undefined;
  return { forbidden: pattern.slice(start + 3, end), rest: pattern.slice(wrapped ? end + 2 : end + 1) };
}

/** Whether RE2 compiles a pattern; records why not otherwise. */
function compiles(pattern, original) {
  try {
    RE2JS.compile(pattern);
    return true;
  } catch (err) {
    unchecked.set(original, err.message);
    return false;
  }
}

/** A model pattern as RE2 reads it (`pattern`, and `forbiddenPrefix` for a leading lookahead), or {} when RE2 cannot express it. */
function re2Pattern(pattern) {
  const rewritten = JAVA_TO_RE2.reduce((p, [from, to]) => p.replace(from, to), pattern);
  const lookahead = leadingLookahead(rewritten);
  if (lookahead) {
    const forbiddenPrefix = `^(?:${lookahead.forbidden})`;
    return compiles(lookahead.rest, pattern) && compiles(forbiddenPrefix, pattern)
      ? { pattern: lookahead.rest, forbiddenPrefix }
      : {};
  }
  return compiles(rewritten, pattern) ? { pattern: rewritten } : {};
}

const python = (code) => execFileSync('python3', ['-c', code], { encoding: 'utf8' }).trim();
const dataDir =
  process.argv[2] ?? python('import botocore, os; print(os.path.join(os.path.dirname(botocore.__file__), "data"))');
const version = python('import botocore; print(botocore.__version__)');

function loadModel(folder) {
  const versions = readdirSync(join(dataDir, folder))
    .filter((v) => /^\d{4}-\d{2}-\d{2}$/.test(v))
    .sort();
  const base = join(dataDir, folder, versions[versions.length - 1], 'service-2.json');
  return JSON.parse(
    existsSync(`${base}.gz`) ? gunzipSync(readFileSync(`${base}.gz`)).toString('utf8') : readFileSync(base, 'utf8'),
  );
}

/** The constraints of one shape (and of its list items or map values), or undefined when it has none. */
function constraintsOf(shapes, recorded, name, seen = new Set()) {
  const shape = shapes[name];
  if (!shape || seen.has(name)) return undefined;
  const out = {};
  if (typeof shape.min === 'number') out.min = shape.min;
  if (typeof shape.max === 'number') out.max = shape.max;
  Object.assign(out, recorded[name]);
  if (Array.isArray(shape.enum)) out.enum = shape.enum;
  if (typeof shape.pattern === 'string') Object.assign(out, re2Pattern(shape.pattern));
  if (Object.keys(out).length > 0) out.type = shape.type;
  const next = new Set(seen).add(name);
  if (shape.type === 'list') {
    const items = constraintsOf(shapes, recorded, shape.member.shape, next);
    if (items) out.items = items;
  } else if (shape.type === 'map') {
    const values = constraintsOf(shapes, recorded, shape.value.shape, next);
    if (values) out.values = values;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Every structure reachable from the operations' outputs, member -> constraints. */
function outputConstraints(model, recorded) {
  const { shapes } = model;
  const result = {};
  const visited = new Set();
  const visit = (name) => {
    if (visited.has(name) || !shapes[name]) return;
    visited.add(name);
    const shape = shapes[name];
    if (shape.type === 'list') return visit(shape.member.shape);
    if (shape.type === 'map') return visit(shape.value.shape);
    if (shape.type !== 'structure' && shape.type !== 'union') return;
    const members = {};
    for (const [member, ref] of Object.entries(shape.members)) {
      const found = constraintsOf(shapes, recorded, ref.shape);
      if (found) members[member] = found;
      visit(ref.shape);
    }
    if (Object.keys(members).length > 0) result[name] = members;
  };
  for (const operation of Object.values(model.operations)) if (operation.output) visit(operation.output.shape);
  return Object.fromEntries(Object.entries(result).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The shapes reachable from the operations' outputs, as far as a type check needs them: operation -> output
 * shape, and per shape its type, a structure's members (name -> shape), required members and HTTP payload, a
 * list's member, a map's key and value.
 */
function outputShapes(model) {
  const shapes = {};
  const visit = (name) => {
    const shape = model.shapes[name];
    if (shapes[name] || !shape) return;
    const out = { type: shape.type };
    shapes[name] = out;
    if (shape.type === 'structure' || shape.type === 'union') {
      out.members = Object.fromEntries(Object.entries(shape.members).map(([member, ref]) => [member, ref.shape]));
      if (shape.required?.length) out.required = shape.required;
      if (shape.payload) out.payload = shape.payload;
      for (const ref of Object.values(shape.members)) visit(ref.shape);
    } else if (shape.type === 'list') {
      out.member = shape.member.shape;
      visit(shape.member.shape);
    } else if (shape.type === 'map') {
      out.key = shape.key.shape;
      out.value = shape.value.shape;
      visit(shape.key.shape);
      visit(shape.value.shape);
    }
  };
  const operations = {};
  for (const [name, operation] of Object.entries(model.operations)) {
    if (!operation.output) continue;
    operations[name] = operation.output.shape;
    visit(operation.output.shape);
  }
  return { operations, shapes };
}

const services = Object.fromEntries(
  Object.entries(SERVICES).map(([service, folder]) => [
    service,
    outputConstraints(loadModel(folder), RECORDED_BOUNDS[service] ?? {}),
  ]),
);
const out = {
  source: `botocore ${version} service models (Apache-2.0): per service, structure -> member -> the member's min/max (length or value), enum and pattern (for RE2); bounds a recording corrects: ${JSON.stringify(RECORDED_BOUNDS)}`,
  uncheckedPatterns: Object.fromEntries(unchecked),
  services,
};
const target = new URL('../packages/engine/src/test-state/api-output-constraints.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(out)}\n`);
console.log(
  `${Object.values(out.services).reduce((n, s) => n + Object.keys(s).length, 0)} structures -> ${target.pathname}`,
);

const shapesOut = {
  source: `botocore ${version} service models (Apache-2.0): per service without a JS SDK client in the engine, operation -> output shape and the shapes reachable from it`,
  services: Object.fromEntries(SHAPES_ONLY.map((service) => [service, outputShapes(loadModel(SERVICES[service]))])),
};
const shapesTarget = new URL('../packages/engine/src/test-state/api-output-shapes.json', import.meta.url);
writeFileSync(shapesTarget, `${JSON.stringify(shapesOut)}\n`);
console.log(
  `${Object.values(shapesOut.services).reduce((n, s) => n + Object.keys(s.shapes).length, 0)} shapes -> ${shapesTarget.pathname}`,
);
