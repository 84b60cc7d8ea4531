/**
 * Which JSONata expressions skip the budget's per-step hooks (bounded-expressions.ts): those whose work is
 * bounded by their size times the data they read. Every runaway case of issue 29, and each construct that
 * can multiply work, keeps the hooks; the expressions real workflows write mostly do not need them (226 of
 * the 231 in the public definitions of test/fixtures/corpus).
 */
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { isBoundedExpression } from '../../src/dataflow/jsonata/bounded-expressions';

const bounded = (expression: string) => isBoundedExpression(jsonata(expression).ast() as never);

describe('bounded expressions', () => {
  it.each([
    '{ "id": $states.input.id, "total": $states.input.a + $states.input.b }',
    '$states.input.order.items.price',
    '$count($states.input.items) > 2 ? "many" : "few"',
    '($x := $states.input.n; [$x, $string($states.input), -$x])',
    '"site-" & $states.input.siteId & ":welcome"',
    '$merge([$states.input, { "at": $now() }])',
    '$states.result.Payload',
    '$uuid()',
  ])('%s is bounded by its size and its input', (expression) => {
    expect(bounded(expression)).toBe(true);
  });

  it.each([
    ['infinite recursion', '($f := function($n){ $f($n+1) }; $f(0))'],
    ['a catastrophic regex', '$match("aaaaaaaaaaaaaaaaaaaaaaaaaa!", /^(a+)+$/)'],
    ['$pad to 50,000,000 characters', '$pad("", 50000000)'],
    ['a range', '[1..10000000]'],
    ['$range', '$range(0, 10000000)'],
    ['one array mapped over another', '$states.input.a.$states.input.b'],
    ['a block mapped over an array', '$states.input.a.($string($states.input))'],
    ['a predicate', '$states.input.items[price > 3]'],
    ['a sort', '$states.input.items^(price)'],
    ['a grouping', '$states.input.items{name: price}'],
    ['a higher-order function', '$map($states.input.items, $string)'],
    ['$eval', '$eval($states.input.code)'],
    ['a string search', '$contains($states.input.text, $states.input.word)'],
    ['the chain operator', '$states.input.s ~> $uppercase()'],
    ['a wildcard', '$states.input.*'],
    ['descendants', '$states.input.**'],
    ['a function of the workflow called by name', '$f($states.input)'],
  ])('%s is not', (_what, expression) => {
    expect(bounded(expression)).toBe(false);
  });
});
