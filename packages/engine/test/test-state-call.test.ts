/**
 * callTestState: TestState with values, as the test environment's `testState(definition, options)` offers
 * it — the request's JSON fields written as text, the answer's read back as values.
 */
import { describe, expect, it } from 'vitest';
import { callTestState, testStateRequest } from '../src';

describe('testStateRequest', () => {
  it('writes the JSON fields as text and defaults the level to DEBUG', () => {
    expect(
      testStateRequest(
        { Type: 'Pass', End: true },
        {
          input: { a: 1 },
          variables: { v: 2 },
          mock: { result: [1] },
          fieldValidationMode: 'NONE',
          retrierRetryCount: 1,
          mapItemReaderData: [3],
        },
      ),
    ).toEqual({
      definition: '{"Type":"Pass","End":true}',
      inspectionLevel: 'DEBUG',
      input: '{"a":1}',
      variables: '{"v":2}',
      mock: { result: '[1]', fieldValidationMode: 'NONE' },
      stateConfiguration: { retrierRetryCount: 1, mapItemReaderData: '[3]' },
    });
  });

  it('writes a mocked error as errorOutput, its cause "" when not given', () => {
    expect(testStateRequest('{"Type":"Task"}', { mock: { error: 'E' } })).toEqual({
      definition: '{"Type":"Task"}',
      inspectionLevel: 'DEBUG',
      mock: { errorOutput: { error: 'E', cause: '' } },
    });
  });
});

describe('callTestState', () => {
  it('reads the output and the inspection steps back as values', async () => {
    const handler = {
      handle: async (operation: string, input: object) => {
        expect(operation).toBe('TestState');
        expect(input).toMatchObject({ definition: '{"Type":"Succeed"}' });
        return {
          status: 'SUCCEEDED',
          output: '{"a":1}',
          inspectionData: {
            input: '{"a":1}',
            afterInputPath: '{"a":1}',
            maxConcurrency: 0,
            errorDetails: { catchIndex: 0 },
          },
        };
      },
    };
    expect(await callTestState(handler, { Type: 'Succeed' })).toEqual({
      status: 'SUCCEEDED',
      output: { a: 1 },
      inspectionData: { input: { a: 1 }, afterInputPath: { a: 1 }, maxConcurrency: 0, errorDetails: { catchIndex: 0 } },
    });
  });
});
