import { CliUsageError, EXIT_FAILURE, EXIT_USAGE } from './errors';
import { terminal } from './output';

/**
 * Wraps a command body so that every failure is one clear line on stderr and a non-zero exit code
 * (2 for a command line that could not be understood, including a filter value no operation knows; 1
 * otherwise). What describes the failure (the operations and the SDK clients' errors) loads only when a
 * command fails: `autosave local` must answer its port before any of it is loaded.
 */
export function commandRunner(
  command: string,
  body: (args: string[]) => Promise<number | void>,
): (args: string[]) => Promise<number> {
  return async (args) => {
    try {
      return (await body(args)) ?? 0;
    } catch (err) {
      const [{ describeCliError }, { InvalidRunFilterError }] = await Promise.all([
        import('./command'),
        import('../operations'),
      ]);
      terminal().error(`autosave ${command}: ${describeCliError(err)}`);
      return err instanceof CliUsageError || err instanceof InvalidRunFilterError ? EXIT_USAGE : EXIT_FAILURE;
    }
  };
}
