/**
 * A Task resource AWS does not know is the user's error (InvalidDefinition); the engine failing to read its own
 * SDK catalog (a broken install: dist/ without the JSON the build copies) is not, and must not read as one.
 */
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../src/lazy-require', () => ({
  lazyRequire: (id: string) => () => {
    if (id.endsWith('aws-sdk-catalog.json')) throw new Error(`Cannot find module '${id}'`);
    return createRequire(import.meta.url)(id);
  },
}));

const { InvalidDefinitionError, validateDefinition } = await import('../../src/definition');
const sdkTask = (resource: string) =>
  JSON.stringify({ StartAt: 'Call', States: { Call: { Type: 'Task', Resource: resource, End: true } } });

describe('a catalog that cannot be read', () => {
  it('fails the check with its own error, not as a resource AWS does not know', () => {
    expect(() => validateDefinition(sdkTask('arn:aws:states:::aws-sdk:ec2:describeInstances'))).toThrow(
      /Cannot find module '\.\/executor\/aws-sdk-catalog\.json'/,
    );
  });

  it('still refuses a resource that is no Task resource at all as InvalidDefinition', () => {
    expect(() => validateDefinition(sdkTask('arn:aws:states:::nothing-at-all'))).toThrow(InvalidDefinitionError);
  });
});
