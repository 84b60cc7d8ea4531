import { describe, expect, it } from 'vitest';
import { compareDefinitions, matchesTemplate } from '../../src/operations/definition-diff';

const compiled = {
  Comment: 'demo 1.0.0',
  StartAt: 'Send',
  States: {
    Send: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Arguments: { FunctionName: '${ToolStepFunctionArn}' },
      Next: 'Done',
    },
    Done: { Type: 'Succeed' },
  },
};
const deployed = (
  fn = 'arn:aws:lambda:us-east-1:123456789012:function:autosave-tool-step:7',
  comment = 'demo 1.0.0',
) => ({
  // Key order differs from the compiled one, as a service may return it.
  States: {
    Send: { Next: 'Done', Arguments: { FunctionName: fn }, Resource: 'arn:aws:states:::lambda:invoke', Type: 'Task' },
    Done: { Type: 'Succeed' },
  },
  StartAt: 'Send',
  Comment: comment,
});

describe('deploy-check definition comparison', () => {
  it('matches a deployed definition whose placeholders were filled with any ARN', () => {
    expect(matchesTemplate(compiled, deployed())).toBe(true);
    expect(compareDefinitions(compiled, deployed()).same).toBe(true);
  });

  it('does not let a placeholder match across JSON strings', () => {
    expect(matchesTemplate({ a: '${ToolStepFunctionArn}' }, { a: 'x", "b": "y' })).toBe(false);
  });

  it('names the changed fields and states', () => {
    const changed = deployed(undefined, 'demo 0.9.0');
    (changed.States as Record<string, unknown>).Old = { Type: 'Pass', End: true };
    expect(compareDefinitions(compiled, changed)).toEqual({
      same: false,
      addedStates: [],
      removedStates: ['Old'],
      changedStates: [],
      changedFields: ['Comment'],
    });
    const retargeted = deployed();
    retargeted.States.Send.Next = 'Elsewhere';
    expect(compareDefinitions(compiled, retargeted).changedStates).toEqual(['Send']);
  });
});
