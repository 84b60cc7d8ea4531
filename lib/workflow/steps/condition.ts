import type { Json } from '../asl-types';
import { isRawJsonata, parseReference, referenceExpression, type TemplateReference } from '../template';

/**
 * A Choice condition. Paths are written like template references without braces: `siteId` reads the
 * execution input, `steps.verify-site.eligible` an earlier result. `Condition.jsonata` takes raw JSONata.
 */
export class Condition {
  private constructor(
    /** The JSONata boolean expression (without `{% %}`). */
    readonly expression: string,
    /** References it reads (checked against the workflow's steps). */
    readonly references: readonly TemplateReference[],
  ) {}

  private static compare(path: string, operator: string, value: Json): Condition {
    const ref = parseReference(path);
    return new Condition(`${referenceExpression(ref)} ${operator} ${JSON.stringify(value)}`, [ref]);
  }

  /** The value at `path` equals `value`. */
  static equals(path: string, value: string | number | boolean | null): Condition {
    return Condition.compare(path, '=', value);
  }

  /** The value at `path` differs from `value`. */
  static notEquals(path: string, value: string | number | boolean | null): Condition {
    return Condition.compare(path, '!=', value);
  }

  /** The number at `path` is greater than `value`. */
  static greaterThan(path: string, value: number): Condition {
    return Condition.compare(path, '>', value);
  }

  /** The number at `path` is less than `value`. */
  static lessThan(path: string, value: number): Condition {
    return Condition.compare(path, '<', value);
  }

  /** The value at `path` is `true`. */
  static isTrue(path: string): Condition {
    return Condition.compare(path, '=', true);
  }

  /** The value at `path` is `false`. */
  static isFalse(path: string): Condition {
    return Condition.compare(path, '=', false);
  }

  /** Something is present at `path`. */
  static exists(path: string): Condition {
    const ref = parseReference(path);
    return new Condition(`$exists(${referenceExpression(ref)})`, [ref]);
  }

  /** All of the conditions hold. */
  static and(...conditions: Condition[]): Condition {
    return new Condition(conditions.map((c) => `(${c.expression})`).join(' and '), conditions.flatMap((c) => c.references));
  }

  /** At least one of the conditions holds. */
  static or(...conditions: Condition[]): Condition {
    return new Condition(conditions.map((c) => `(${c.expression})`).join(' or '), conditions.flatMap((c) => c.references));
  }

  /** The condition does not hold. */
  static not(condition: Condition): Condition {
    return new Condition(`$not(${condition.expression})`, condition.references);
  }

  /** Raw JSONata, with or without `{% %}`; it reads `$states.input.input` and `$states.input.steps`. */
  static jsonata(expression: string): Condition {
    return new Condition(isRawJsonata(expression) ? expression.slice(2, -2).trim() : expression, []);
  }
}
