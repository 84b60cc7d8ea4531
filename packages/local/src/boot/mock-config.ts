import type { MockTestCases } from '@autosave/engine';
import type { StartLocalOptions } from './options';
import type { Shutdown } from './shutdown';

/**
 * The mock config: given in code, else its file (`mockConfigFile`, else `SFN_MOCK_CONFIG`), loaded now and watched
 * from now on. Read before the engine is made, which runs its mocked starts under it: a file that does not load
 * fails the start.
 */
export async function readMockConfig(
  options: StartLocalOptions,
  log: (line: string) => void,
  shutdown: Shutdown,
): Promise<MockTestCases | undefined> {
  const mockConfigPath = options.mockConfig
    ? undefined
    : (options.mockConfigFile ?? (process.env.SFN_MOCK_CONFIG || undefined));
  const mockConfigFile = mockConfigPath
    ? new (await import('../services/mock-config-file')).MockConfigFile(mockConfigPath, { log })
    : undefined;
  if (mockConfigFile) {
    const loaded = mockConfigFile.load();
    if (!loaded.ok) throw loaded.error;
    mockConfigFile.watch();
    shutdown.add(() => mockConfigFile.close());
  }
  return options.mockConfig ?? mockConfigFile;
}
