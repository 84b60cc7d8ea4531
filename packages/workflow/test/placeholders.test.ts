import { describe, expect, it } from 'vitest';
import {
  PLACEHOLDER_NAMES,
  localPlaceholderValues,
  placeholder,
  placeholdersIn,
  substitutePlaceholders,
} from '@autosave/workflow';

describe('placeholders', () => {
  it('lists the four placeholders of architecture §1', () => {
    expect(PLACEHOLDER_NAMES.map(placeholder)).toEqual([
      '${ModelStepFunctionArn}',
      '${ToolStepFunctionArn}',
      '${ApprovalRequestFunctionArn}',
      '${WorkflowAliasArn}',
    ]);
  });

  it('fills every placeholder, deep, and leaves other ${...} text alone', () => {
    const asl = { a: { FunctionName: '${ToolStepFunctionArn}', list: ['${WorkflowAliasArn}', 'cost ${price}'] } };
    expect(placeholdersIn(asl)).toEqual(['ToolStepFunctionArn', 'WorkflowAliasArn']);
    expect(substitutePlaceholders(asl, { ToolStepFunctionArn: 'arn:tool', WorkflowAliasArn: 'arn:alias' })).toEqual({
      a: { FunctionName: 'arn:tool', list: ['arn:alias', 'cost ${price}'] },
    });
    expect(asl.a.FunctionName).toBe('${ToolStepFunctionArn}');
  });

  it('refuses to leave a used placeholder unfilled', () => {
    expect(() => substitutePlaceholders({ f: '${ModelStepFunctionArn}' }, {})).toThrow(
      'no value for placeholder ${ModelStepFunctionArn}',
    );
  });

  it('gives the local engine its ARNs', () => {
    expect(localPlaceholderValues('contract-renewal')).toEqual({
      ModelStepFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:autosave-model-step',
      ToolStepFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:autosave-tool-step',
      ApprovalRequestFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:autosave-approval-request',
      WorkflowAliasArn: 'arn:aws:states:us-east-1:123456789012:stateMachine:contract-renewal:live',
    });
  });
});
