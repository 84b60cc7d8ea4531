/**
 * The floor of one Step Functions API call through Node's HTTP server: a process that reads each request's body,
 * parses it, and answers a fixed DescribeExecution answer, nothing else. Its CPU per call, measured from the same
 * SDK client as the engine's, is what Node's `http` module and the AWS JSON protocol cost on this machine before
 * any engine work: a goal below it cannot be met by the engine.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** The server's whole source, run with `node -e`: no module of ours, so nothing but Node's HTTP is measured. */
const SERVER_SOURCE = `
const http = require('node:http');
const answer = JSON.stringify({
  executionArn: 'arn:aws:states:us-east-1:123456789012:execution:bench-seven:run-0',
  stateMachineArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:bench-seven',
  name: 'run-0', status: 'SUCCEEDED', startDate: 1765000000.123, stopDate: 1765000000.456,
  input: '{"runId":"run-0"}', inputDetails: { included: true }, output: '{"step":7}', outputDetails: { included: true },
  redriveCount: 0, redriveStatus: 'NOT_REDRIVABLE',
});
const head = ['content-type', 'application/x-amz-json-1.0', 'content-length', String(Buffer.byteLength(answer))];
http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, head);
    res.end(answer);
  });
}).listen(0, '127.0.0.1', function () { console.log(this.address().port); });
`;

/** A running floor server. */
export interface HttpFloorServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Starts the floor server in a process of its own and resolves once it listens. */
export function startHttpFloorServer(): Promise<HttpFloorServer> {
  return startFloorProcess(['-e', SERVER_SOURCE]);
}

/** Runs `node <args>`, a server that prints its port on its first line, and resolves once it has. */
export async function startFloorProcess(args: readonly string[]): Promise<HttpFloorServer> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(child.stdout!, 'data')) as [Buffer];
  return {
    url: `http://127.0.0.1:${String(port).trim()}`,
    pid: child.pid!,
    stop: async () => {
      child.kill();
      await once(child, 'exit');
    },
  };
}
