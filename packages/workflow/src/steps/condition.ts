import type { Json } from '../asl-types';
import { isRawJsonata, parseReference, referenceExpression, type TemplateReference } from '../template';

/**
 * A Choice condition. Paths are written like template references without braces: `siteId` reads the
 * execution input, `steps.verify-site.eligible` an earlier result. `Condition.jsonata` takes raw JSONata.
 * Paths are parsed when the workflow compiles, so a bad one is reported with the workflow and step.
 */
export class Condition {
  private constructor(
    private readonly build: () => string,
    /** The paths it reads (checked against the workflow's steps when it compiles). */
    readonly paths: readonly string[],
  ) {}

  /** The JSONata boolean expression (without `{% %}`); throws TemplateSyntaxError on a malformed path. */
  get expression(): string {
    return this.build();
  }

  /** The references it reads; throws TemplateSyntaxError on a malformed path. */
  get references(): TemplateReference[] {
    return this.paths.map(parseReference);
  }

  private static compare(path: string, operator: string, value: Json): Condition {
    return new Condition(
      () => `${referenceExpression(parseReference(path))} ${operator} ${JSON.stringify(value)}`,
      [path],
    );
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
    return new Condition(() => `$exists(${referenceExpression(parseReference(path))})`, [path]);
  }

  /** All of the conditions hold. */
  static and(...conditions: Condition[]): Condition {
    return Condition.join('and', conditions);
  }

  /** At least one of the conditions holds. */
  static or(...conditions: Condition[]): Condition {
    return Condition.join('or', conditions);
  }

  private static join(operator: 'and' | 'or', conditions: Condition[]): Condition {
    return new Condition(
      () => conditions.map((c) => `(${c.expression})`).join(` ${operator} `),
      conditions.flatMap((c) => c.paths),
    );
  }

  /** The condition does not hold. */
  static not(condition: Condition): Condition {
    return new Condition(() => `$not(${condition.expression})`, condition.paths);
  }

  /** Raw JSONata, with or without `{% %}`; it reads `$states.input.input` and `$states.input.steps`. */
  static jsonata(expression: string): Condition {
    const bare = isRawJsonata(expression) ? expression.slice(2, -2).trim() : expression;
    return new Condition(() => bare, []);
  }
}
