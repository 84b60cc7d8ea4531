import { describe, expect, it } from 'vitest';
import { CHOICE_LABEL_MAX, choiceRuleText, shortChoiceLabel } from '../../src/console/choice-labels';

describe('Choice edge labels', () => {
  it('write a JSONata condition without its {% %} and keep the last segment of each path in the short form', () => {
    const text = choiceRuleText({ Condition: '{% $states.input.steps.research.turn + 1 >= 12 %}', Next: 'Done' });
    expect(text).toBe('$states.input.steps.research.turn + 1 >= 12');
    expect(shortChoiceLabel(text)).toBe('turn + 1 >= 12');
    expect(shortChoiceLabel('$states.context.Execution.Input.`$continuation`.step = "research"')).toBe(
      'step = "research"',
    );
    expect(shortChoiceLabel('$count($states.input.steps.research.toolCalls) = 0')).toBe('$count(toolCalls) = 0');
  });

  it('write JSONPath rules (States Language, Choice Rules) as operators, And, Or and Not included', () => {
    expect(choiceRuleText({ Variable: '$.order.total', NumericGreaterThanEquals: 100, Next: 'Big' })).toBe(
      '$.order.total >= 100',
    );
    expect(choiceRuleText({ Variable: '$.status', StringEqualsPath: '$.expected', Next: 'Same' })).toBe(
      '$.status == $.expected',
    );
    expect(choiceRuleText({ Variable: '$.note', IsPresent: false, Next: 'None' })).toBe('$.note is not present');
    expect(
      choiceRuleText({
        And: [{ Variable: '$.a', BooleanEquals: true }, { Not: { Variable: '$.b', StringMatches: 'x*' } }],
        Next: 'Both',
      }),
    ).toBe('($.a == true) and (not ($.b matches "x*"))');
    expect(shortChoiceLabel('$.order.total >= 100')).toBe('total >= 100');
  });

  it('cut a long rule to the label length, with an ellipsis', () => {
    const label = shortChoiceLabel('$states.input.a.first = true or $states.input.b.second = "a long string value"');
    expect(label.length).toBe(CHOICE_LABEL_MAX);
    expect(label.endsWith('…')).toBe(true);
  });
});
