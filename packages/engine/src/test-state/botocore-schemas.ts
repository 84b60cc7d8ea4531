/**
 * The output shapes of services whose AWS SDK for JavaScript client the engine does not carry (SNS), read from
 * botocore's copy of the same Smithy models (`api-output-shapes.json`, written by
 * `scripts/api-output-constraints.mjs`) and given in the form a client module exports them: `<Operation>$`
 * operation schemas whose output is a Smithy static schema (see mock-shape.ts). mock-shape.ts then checks a
 * mocked result against them exactly as against a client's own schemas.
 */
import { lazyRequire } from '../lazy-require';

/** A shape as the table keeps it: its type, and what a type check needs of a structure, list or map. */
interface TableShape {
  readonly type: string;
  readonly members?: Readonly<Record<string, string>>;
  readonly required?: readonly string[];
  /** The member that is the HTTP payload (any JSON in a state's data). */
  readonly payload?: string;
  readonly member?: string;
  readonly key?: string;
  readonly value?: string;
}

interface ServiceTable {
  readonly operations: Readonly<Record<string, string>>;
  readonly shapes: Readonly<Record<string, TableShape>>;
}

/** api-output-shapes.json, read with the first mock checked against a service without a client here (see lazy-require.ts). */
const tables = lazyRequire<{ services: Readonly<Record<string, ServiceTable>> }>('./test-state/api-output-shapes.json');

/** Smithy's simple-type codes, as the static schemas write them (mock-shape.ts's `simple`). */
const SIMPLE: Readonly<Record<string, number>> = {
  string: 0,
  integer: 1,
  long: 1,
  float: 1,
  double: 1,
  bigInteger: 1,
  bigDecimal: 1,
  boolean: 2,
  timestamp: 4,
  blob: 21,
  document: 15,
};

/**
 * A client-module-shaped object for a service of the table: `<Operation>$` -> `[9, ns, name, 0, input, output]`.
 * Structures come back as thunks, made once each, so recursive shapes end.
 */
export function botocoreSchemaModule(service: string): Readonly<Record<string, unknown>> {
  const table = tables().services[service];
  if (!table) return {};
  const made = new Map<string, unknown>();
  const schemaOf = (name: string): unknown => {
    const shape = table.shapes[name];
    if (!shape) return undefined;
    if (shape.type in SIMPLE) return SIMPLE[shape.type];
    const known = made.get(name);
    if (known) return known;
    const ref = (target: string | undefined) => () => (target === undefined ? undefined : schemaOf(target));
    let schema: unknown[];
    if (shape.type === 'list') schema = [1, service, name, 0, ref(shape.member)];
    else if (shape.type === 'map') schema = [2, service, name, 0, ref(shape.key), ref(shape.value)];
    else {
      // Required members first: a static schema counts them from the start (`requiredCount`).
      const required = new Set(shape.required ?? []);
      const names = Object.keys(shape.members ?? {}).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
      const refs = names.map((member) =>
        member === shape.payload ? [ref(shape.members?.[member]), { httpPayload: 1 }] : ref(shape.members?.[member]),
      );
      schema = [shape.type === 'union' ? 4 : 3, service, name, 0, names, refs, required.size];
    }
    made.set(name, schema);
    return schema;
  };
  return Object.fromEntries(
    Object.entries(table.operations).map(([operation, output]) => [
      `${operation}$`,
      [9, service, operation, 0, undefined, () => schemaOf(output)],
    ]),
  );
}
