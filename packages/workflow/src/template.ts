import type { Json } from './asl-types';
import { INPUT_ROOT, STEPS_ROOT, jsonata, jsonataPath } from './state-data';

/**
 * String templates in step options. `{siteId}` reads the execution input, `{steps.verify-site.code}`
 * an earlier step's result; `{{` and `}}` are literal braces. A whole string of the form `{% ... %}`
 * is raw JSONata and is passed through untouched (it may read `$states.input.input` / `.steps`).
 */

/** One `{...}` reference in a template. */
export interface TemplateReference {
  /** The text between the braces, e.g. `steps.verify-site.code`. */
  readonly text: string;
  /** The step whose result is read, or undefined for the execution input. */
  readonly step?: string;
  /** Fields below the root (the input, or the step's result). */
  readonly fields: readonly string[];
}

/** A parsed template: literal text and references, in order. */
export type TemplatePart = { readonly literal: string } | { readonly ref: TemplateReference };

/** A template that does not parse; the compiler turns it into a WorkflowDefinitionError. */
export class TemplateSyntaxError extends Error {
  override readonly name = 'TemplateSyntaxError' as const;
}

const FIELD = /^[A-Za-z0-9_-]+$/;
const RAW_JSONATA = /^\{%[\s\S]*%\}$/;

/** Whether a string is raw JSONata (`{% ... %}`), passed through as written. */
export function isRawJsonata(text: string): boolean {
  return RAW_JSONATA.test(text);
}

/** Parses the path between braces into a reference. */
export function parseReference(text: string): TemplateReference {
  const fields = text.split('.');
  if (text === '' || !fields.every((f) => FIELD.test(f))) {
    throw new TemplateSyntaxError(`'{${text}}' is not a reference: use {field.path} or {steps.<step>.path}`);
  }
  if (fields[0] === 'steps') {
    if (fields.length < 2) throw new TemplateSyntaxError(`'{steps}' must name a step: {steps.<step>.path}`);
    return { text, step: fields[1], fields: fields.slice(2) };
  }
  return { text, fields };
}

/** Splits a template into literal text and references. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literal = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if ((c === '{' || c === '}') && template[i + 1] === c) {
      literal += c;
      i++;
    } else if (c === '{') {
      const close = template.indexOf('}', i + 1);
      if (close < 0) throw new TemplateSyntaxError(`unclosed '{' in '${template}' (write '{{' for a literal brace)`);
      if (literal) parts.push({ literal });
      literal = '';
      parts.push({ ref: parseReference(template.slice(i + 1, close)) });
      i = close;
    } else if (c === '}') {
      throw new TemplateSyntaxError(`unmatched '}' in '${template}' (write '}}' for a literal brace)`);
    } else {
      literal += c;
    }
  }
  if (literal) parts.push({ literal });
  return parts;
}

/** The references of a template (none for raw JSONata). */
export function templateReferences(template: string): TemplateReference[] {
  if (isRawJsonata(template)) return [];
  return parseTemplate(template).flatMap((p) => ('ref' in p ? [p.ref] : []));
}

/** The references in every string of a JSON value (objects and arrays walked). */
export function valueReferences(value: Json | undefined): TemplateReference[] {
  if (typeof value === 'string') return templateReferences(value);
  if (Array.isArray(value)) return value.flatMap((v) => valueReferences(v));
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap((v) => valueReferences(v));
  return [];
}

/** JSONata reading what a reference points at. */
export function referenceExpression(ref: TemplateReference): string {
  return ref.step === undefined
    ? jsonataPath(INPUT_ROOT, ref.fields)
    : jsonataPath(STEPS_ROOT, [ref.step, ...ref.fields]);
}

/** JSONata building the template's text: literals and `$string(<reference>)` joined with `&`. */
export function stringExpression(template: string): string {
  if (isRawJsonata(template)) return template.slice(2, -2).trim();
  const parts = parseTemplate(template);
  if (parts.length === 0) return '""';
  return parts
    .map((p) => ('ref' in p ? `$string(${referenceExpression(p.ref)})` : JSON.stringify(p.literal)))
    .join(' & ');
}

/**
 * JSONata building an idempotency key. Unlike {@link stringExpression}, a reference that resolves to
 * nothing raises an error instead of rendering as '': a key missing a part would be shared by every run
 * missing it, and a shared key silently suppresses real side effects.
 */
export function keyExpression(template: string, step: string): string {
  if (isRawJsonata(template)) return template.slice(2, -2).trim();
  return parseTemplate(template)
    .map((p) => {
      if (!('ref' in p)) return JSON.stringify(p.literal);
      const read = referenceExpression(p.ref);
      const message = JSON.stringify(`idempotency key of step '${step}': {${p.ref.text}} is missing`);
      return `($exists(${read}) ? $string(${read}) : $error(${message}))`;
    })
    .join(' & ');
}

/**
 * A JSON value with its templates compiled for a JSONata `Arguments` field: a string that is exactly
 * one reference keeps the referenced value's type (`'{steps.draft}'` passes an object), other
 * templated strings become text, strings without references stay literal.
 */
export function renderValue(value: Json): Json {
  if (typeof value === 'string') {
    if (isRawJsonata(value)) return value;
    const parts = parseTemplate(value);
    if (parts.length === 1 && 'ref' in parts[0]) return jsonata(referenceExpression(parts[0].ref));
    if (parts.some((p) => 'ref' in p) || value === '') return jsonata(stringExpression(value));
    return parts.length === 0 ? '' : (parts[0] as { literal: string }).literal;
  }
  if (Array.isArray(value)) return value.map((v) => renderValue(v));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderValue(v as Json)]));
  }
  return value;
}

/** A template compiled to an ASL string field that always evaluates to text. */
export function renderString(template: string): string {
  const rendered = renderValue(template);
  if (typeof rendered === 'string' && !isRawJsonata(rendered)) return rendered;
  return jsonata(stringExpression(template));
}
