// The durable API floor (bench/api-floor.ts): the least a Node process can do to serve the bench's seven-step
// runs through the Step Functions API with the engine's durability, and nothing of the engine. Node's HTTP
// server; the AWS JSON protocol's three calls the driver makes; the bench's own step function called in
// process; SQLite in WAL with synchronous=FULL, as the engine's store; one fsync'd commit for the start and
// one per step (eight per run, as the engine), shared by the runs that commit in the same turn of the event
// loop (the engine's group commit). No state machine, no history, no validation: a run's row and each step's
// output. Plain JavaScript on purpose: no module of ours, no TypeScript loader in the measured process.
//
// `node bench/api-floor-server.mjs <database file> <functions module>`: prints its port, serves until killed.
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';

const STEPS = 7;
const [databaseFile, functionsModule] = process.argv.slice(2);
const step = (await import(pathToFileURL(functionsModule).href)).default['bench-step'];

const db = new Database(databaseFile);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`
  CREATE TABLE runs (arn TEXT PRIMARY KEY, machine TEXT, name TEXT, status TEXT, input TEXT, output TEXT,
                     start_ms INTEGER, stop_ms INTEGER);
  CREATE TABLE steps (arn TEXT, step INTEGER, output TEXT, PRIMARY KEY (arn, step));
`);
const insertRun = db.prepare(
  "INSERT INTO runs (arn, machine, name, status, input, start_ms) VALUES (?, ?, ?, 'RUNNING', ?, ?)",
);
const insertStep = db.prepare('INSERT INTO steps (arn, step, output) VALUES (?, ?, ?)');
const closeRun = db.prepare("UPDATE runs SET status = 'SUCCEEDED', output = ?, stop_ms = ? WHERE arn = ?");
const selectRun = db.prepare('SELECT * FROM runs WHERE arn = ?');

/** Writes queued in this turn of the event loop, committed together on the next (group commit). */
let queued = [];
const commitEach = db.transaction((writes) => {
  for (const { write } of writes) write();
});
function flush() {
  const writes = queued;
  queued = [];
  commitEach(writes);
  for (const { resolve } of writes) resolve();
}
/** Resolves once `write` is committed (fsync'd). */
function commit(write) {
  return new Promise((resolve) => {
    if (queued.length === 0) setImmediate(flush);
    queued.push({ write, resolve });
  });
}

/** A run's seven steps, each result committed before the next step starts; the last commit closes the run. */
async function drive(arn, input) {
  let state = JSON.parse(input);
  for (let i = 1; i <= STEPS; i += 1) {
    state = { ...state, last: await step({ step: i, runId: state.runId }) };
    const output = JSON.stringify(state);
    await commit(() => {
      insertStep.run(arn, i, output);
      if (i === STEPS) closeRun.run(output, Date.now(), arn);
    });
  }
}

const seconds = (ms) => ms / 1000;
const operations = {
  CreateStateMachine: async ({ name }) => ({
    stateMachineArn: `arn:aws:states:us-east-1:123456789012:stateMachine:${name}`,
    creationDate: seconds(Date.now()),
  }),
  StartExecution: async ({ stateMachineArn, name, input = '{}' }) => {
    const executionArn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
    const startMs = Date.now();
    await commit(() => insertRun.run(executionArn, stateMachineArn, name, input, startMs));
    drive(executionArn, input).catch((error) => {
      console.error(error);
      process.exit(1);
    });
    return { executionArn, startDate: seconds(startMs) };
  },
  DescribeExecution: async ({ executionArn }) => {
    const run = selectRun.get(executionArn);
    return {
      executionArn,
      stateMachineArn: run.machine,
      name: run.name,
      status: run.status,
      startDate: seconds(run.start_ms),
      input: run.input,
      inputDetails: { included: true },
      ...(run.stop_ms === null
        ? {}
        : { stopDate: seconds(run.stop_ms), output: run.output, outputDetails: { included: true } }),
      redriveCount: 0,
      redriveStatus: 'NOT_REDRIVABLE',
    };
  },
};

function answer(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/cpu') {
    const { user, system } = process.cpuUsage();
    answer(res, 200, { processCpuMicros: user + system });
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const operation = operations[String(req.headers['x-amz-target']).split('.')[1]];
    if (!operation) {
      answer(res, 400, { __type: 'UnknownOperationException' });
      return;
    }
    operation(JSON.parse(Buffer.concat(chunks).toString('utf8'))).then(
      (body) => answer(res, 200, body),
      (error) => answer(res, 500, { __type: 'InternalFailure', message: String(error) }),
    );
  });
}).listen(0, '127.0.0.1', function listening() {
  console.log(this.address().port);
});
