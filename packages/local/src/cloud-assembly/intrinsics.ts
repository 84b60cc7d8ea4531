import type { CfnTemplate } from './template';

/** The pseudo parameters CloudFormation defines (`Ref: AWS::Region`, `${AWS::AccountId}`, ...). */
export const PSEUDO_PARAMETERS = [
  'AWS::AccountId',
  'AWS::Partition',
  'AWS::Region',
  'AWS::StackName',
  'AWS::StackId',
  'AWS::URLSuffix',
  'AWS::NoValue',
  'AWS::NotificationARNs',
] as const;

/** A pseudo parameter's name. */
export type PseudoParameter = (typeof PSEUDO_PARAMETERS)[number];

/** A template could not be resolved (an unknown resource, attribute, function or condition). */
export class IntrinsicResolutionError extends Error {
  override readonly name = 'IntrinsicResolutionError';
}

/** Marks a value `Ref: AWS::NoValue` removed: the property it stands in is dropped. */
const NO_VALUE = Symbol('AWS::NoValue');

/**
 * Where the values of a template's references come from: on AWS (see `AwsResolutionContext`), on the
 * local engine, or anywhere else. Each method gets the resolver, so a value may depend on other
 * resolved properties (a function ARN on its `FunctionName`, a version number on its function).
 */
export interface ResolutionContext {
  /** `Ref` of a resource. */
  ref(logicalId: string, resolver: TemplateResolver): unknown;
  /** `Fn::GetAtt` of a resource. */
  getAtt(logicalId: string, attribute: string, resolver: TemplateResolver): unknown;
  /** A pseudo parameter's value. */
  pseudo(name: PseudoParameter, resolver: TemplateResolver): unknown;
  /** A template parameter's value. @default the parameter's `Default` */
  parameter?(name: string, resolver: TemplateResolver): unknown;
}

/**
 * Resolves a template's intrinsic functions against a {@link ResolutionContext}: `Ref`, `Fn::GetAtt`,
 * `Fn::Join`, `Fn::Sub` (both forms), `Fn::Select`, `Fn::Split`, `Fn::If`, `Fn::Equals`, `Fn::And`,
 * `Fn::Or`, `Fn::Not`, `Fn::FindInMap`, `Fn::Base64`, `Fn::GetAZs` (empty), and conditions.
 * Properties are resolved on demand and memoised, so references between resources resolve in any order.
 */
export class TemplateResolver {
  private readonly properties = new Map<string, unknown>();
  private readonly conditions = new Map<string, boolean>();
  private readonly resolving = new Set<string>();

  constructor(
    readonly template: CfnTemplate,
    readonly context: ResolutionContext,
  ) {}

  /** Whether the template has a resource of that logical id whose condition (if any) holds. */
  has(logicalId: string): boolean {
    const resource = this.template.Resources[logicalId];
    return resource !== undefined && (resource.Condition === undefined || this.condition(resource.Condition));
  }

  /** The logical ids of the resources that exist (their condition holds), of one type if given. */
  logicalIds(type?: string): string[] {
    return Object.entries(this.template.Resources)
      .filter(([id, r]) => (type === undefined || r.Type === type) && this.has(id))
      .map(([id]) => id);
  }

  /** The type of a resource. @throws IntrinsicResolutionError for an unknown logical id */
  typeOf(logicalId: string): string {
    const resource = this.template.Resources[logicalId];
    if (!resource) throw new IntrinsicResolutionError(`No resource "${logicalId}" in the template`);
    return resource.Type;
  }

  /** One resolved property of a resource (undefined when absent). */
  property(logicalId: string, name: string): unknown {
    const key = `${logicalId}.${name}`;
    if (this.properties.has(key)) return this.properties.get(key);
    const raw = this.template.Resources[logicalId]?.Properties?.[name];
    if (this.resolving.has(key)) throw new IntrinsicResolutionError(`Circular reference through ${key}`);
    this.resolving.add(key);
    try {
      const value = raw === undefined ? undefined : this.value(raw);
      this.properties.set(key, value);
      return value;
    } finally {
      this.resolving.delete(key);
    }
  }

  /** Every resolved property of a resource. */
  resolvedProperties(logicalId: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const name of Object.keys(this.template.Resources[logicalId]?.Properties ?? {})) {
      const value = this.property(logicalId, name);
      if (value !== undefined) out[name] = value;
    }
    return out;
  }

  /** Whether a named condition of the template holds. */
  condition(name: string): boolean {
    const known = this.conditions.get(name);
    if (known !== undefined) return known;
    const expression = this.template.Conditions?.[name];
    if (expression === undefined) throw new IntrinsicResolutionError(`No condition "${name}" in the template`);
    const value = this.value(expression);
    if (typeof value !== 'boolean') throw new IntrinsicResolutionError(`Condition "${name}" is not a boolean`);
    this.conditions.set(name, value);
    return value;
  }

  /** Resolves any template value: intrinsic functions replaced by what they stand for. */
  value(value: unknown): unknown {
    const resolved = this.resolve(value);
    return resolved === NO_VALUE ? undefined : resolved;
  }

  /** Resolves a value that must be a string. */
  string(value: unknown, what = 'value'): string {
    const resolved = this.value(value);
    if (typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
    if (typeof resolved !== 'string')
      throw new IntrinsicResolutionError(`${what} did not resolve to a string: ${JSON.stringify(resolved)}`);
    return resolved;
  }

  private resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v)).filter((v) => v !== NO_VALUE);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1) {
      const [fn, args] = entries[0];
      if (fn === 'Ref') return this.ref(this.string(args, 'Ref'));
      if (fn === 'Condition') return this.condition(this.string(args, 'Condition'));
      if (fn.startsWith('Fn::')) return this.call(fn, args);
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries) {
      const r = this.resolve(v);
      if (r !== NO_VALUE) out[k] = r;
    }
    return out;
  }

  private ref(name: string): unknown {
    if ((PSEUDO_PARAMETERS as readonly string[]).includes(name)) {
      return name === 'AWS::NoValue' ? NO_VALUE : this.context.pseudo(name as PseudoParameter, this);
    }
    const parameter = this.template.Parameters?.[name];
    if (parameter) return this.context.parameter ? this.context.parameter(name, this) : parameter.Default;
    if (!this.template.Resources[name])
      throw new IntrinsicResolutionError(`Ref to unknown resource or parameter "${name}"`);
    return this.context.ref(name, this);
  }

  private call(fn: string, args: unknown): unknown {
    switch (fn) {
      case 'Fn::GetAtt': {
        const [logicalId, attribute] =
          typeof args === 'string' ? splitOnce(args, '.') : (this.value(args) as [string, string]);
        if (!this.template.Resources[logicalId])
          throw new IntrinsicResolutionError(`Fn::GetAtt of unknown resource "${logicalId}"`);
        return this.context.getAtt(logicalId, attribute, this);
      }
      case 'Fn::Join': {
        const [separator, list] = args as [string, unknown];
        const items = this.list(list, 'Fn::Join');
        return items.map((i) => this.string(i, 'Fn::Join item')).join(separator);
      }
      case 'Fn::Sub':
        return this.sub(args);
      case 'Fn::Select': {
        const [index, list] = args as [unknown, unknown];
        const items = this.list(list, 'Fn::Select');
        const i = Number(this.value(index));
        if (!Number.isInteger(i) || i < 0 || i >= items.length)
          throw new IntrinsicResolutionError(`Fn::Select index ${i} out of range (${items.length} items)`);
        return items[i];
      }
      case 'Fn::Split': {
        const [separator, source] = args as [string, unknown];
        return this.string(source, 'Fn::Split source').split(separator);
      }
      case 'Fn::If': {
        const [name, whenTrue, whenFalse] = args as [string, unknown, unknown];
        return this.resolve(this.condition(name) ? whenTrue : whenFalse);
      }
      case 'Fn::Equals': {
        const [a, b] = args as [unknown, unknown];
        return JSON.stringify(this.value(a)) === JSON.stringify(this.value(b));
      }
      case 'Fn::And':
        return (args as unknown[]).every((c) => this.bool(c));
      case 'Fn::Or':
        return (args as unknown[]).some((c) => this.bool(c));
      case 'Fn::Not':
        return !this.bool((args as unknown[])[0]);
      case 'Fn::FindInMap': {
        const [map, top, second] = (args as unknown[]).map((a) => this.string(a, 'Fn::FindInMap key'));
        const found = this.template.Mappings?.[map]?.[top]?.[second];
        if (found === undefined) throw new IntrinsicResolutionError(`Fn::FindInMap: no ${map}.${top}.${second}`);
        return this.value(found);
      }
      case 'Fn::Base64':
        return Buffer.from(this.string(args, 'Fn::Base64'), 'utf8').toString('base64');
      case 'Fn::GetAZs':
        return [];
      default:
        throw new IntrinsicResolutionError(`Unsupported intrinsic function ${fn}`);
    }
  }

  private bool(condition: unknown): boolean {
    const value = this.value(condition);
    if (typeof value !== 'boolean')
      throw new IntrinsicResolutionError(`Condition did not resolve to a boolean: ${JSON.stringify(value)}`);
    return value;
  }

  private list(value: unknown, what: string): unknown[] {
    const resolved = this.value(value);
    if (!Array.isArray(resolved))
      throw new IntrinsicResolutionError(`${what} needs a list, got ${JSON.stringify(resolved)}`);
    return resolved;
  }

  /** `Fn::Sub`: `"text ${Name} ${Res.Attr} ${!literal}"` or `[text, { Name: value }]`. */
  private sub(args: unknown): string {
    const [text, variables] = typeof args === 'string' ? [args, {}] : (args as [string, Record<string, unknown>]);
    return substitute(text, (name) => {
      if (name in variables) return this.string(variables[name], `Fn::Sub variable ${name}`);
      if (name.includes('.') && !name.startsWith('AWS::')) {
        const [logicalId, attribute] = splitOnce(name, '.');
        if (!this.template.Resources[logicalId])
          throw new IntrinsicResolutionError(`Fn::Sub of unknown resource "${logicalId}"`);
        return this.string(this.context.getAtt(logicalId, attribute, this), `Fn::Sub ${name}`);
      }
      return this.string(this.ref(name), `Fn::Sub ${name}`);
    });
  }
}

/**
 * Replaces `${Name}` in a string with what `lookup` gives, and `${!Literal}` with `${Literal}` (the
 * escaping rule of `Fn::Sub` and of Step Functions `DefinitionSubstitutions`).
 */
export function substitute(text: string, lookup: (name: string) => string): string {
  return text.replace(/\$\{([^{}]*)\}/g, (_, name: string) =>
    name.startsWith('!') ? '${' + name.slice(1) + '}' : lookup(name.trim()),
  );
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  if (at < 0) throw new IntrinsicResolutionError(`Expected "<resource>${separator}<attribute>", got "${text}"`);
  return [text.slice(0, at), text.slice(at + 1)];
}
