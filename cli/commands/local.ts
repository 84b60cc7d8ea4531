import { parseArgs } from 'node:util';
import { DEFAULT_LOCAL_DATA_DIR, DEFAULT_LOCAL_PORT } from '../../lib/config';

/** `autosave local`: runs the embedded engine with every workflow deployed, until SIGINT/SIGTERM. */
export const summary = 'run the local engine (Step Functions, SQS, DynamoDB, S3, console) with every workflow deployed';

const USAGE = `usage: autosave local [--port ${DEFAULT_LOCAL_PORT}] [--data ${DEFAULT_LOCAL_DATA_DIR}] [--virtual-clock] [--functions <module>]`;

/** Parses the flags, starts the engine and resolves with the exit code once a signal stopped it. */
export async function run(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        port: { type: 'string', default: String(DEFAULT_LOCAL_PORT) },
        data: { type: 'string', default: DEFAULT_LOCAL_DATA_DIR },
        'virtual-clock': { type: 'boolean', default: false },
        functions: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    console.error(`autosave local: ${(err as Error).message.split('\n')[0]}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`autosave local: --port must be a port number (0 picks a free one)\n${USAGE}`);
    return 2;
  }
  // Loaded here, not at the top: `autosave help` should not pay for the engine's dependencies.
  const { startLocal } = await import('../../local/server');
  const local = await startLocal({ port, dataDir: values.data, virtualClock: values['virtual-clock'], functionsModule: values.functions });
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      console.log(`autosave local: ${signal}, stopping (runs in flight resume at the next start)`);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await local.stop();
  return 0;
}
