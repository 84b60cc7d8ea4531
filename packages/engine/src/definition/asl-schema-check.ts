import { createRequire } from 'node:module';
import type aslValidatorFunction from 'asl-validator';

type AslValidator = typeof aslValidatorFunction;

/** One finding of asl-validator's JSON-schema check, in its own shape. */
interface SchemaFinding {
  readonly 'Error code': string;
  readonly Message: string;
  readonly schemaError: { readonly instancePath: string; readonly schemaPath: string };
}

/** asl-validator's options, as its checks receive them. */
interface CheckOptions {
  readonly checkPaths?: boolean;
  readonly checkArn?: boolean;
}

type SchemaCheck = (definition: unknown, options: CheckOptions) => SchemaFinding[];

/** What this module uses of an Ajv error (ajv is asl-validator's dependency, not the engine's). */
interface ErrorObject {
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly keyword: string;
  readonly message?: string;
}
type ValidateFunction = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
interface AjvInstance {
  addFormat(name: string, check: (value: string) => boolean): unknown;
  getSchema(id: string): ValidateFunction | undefined;
}

/** asl-validator's schema files, in the order it adds them. */
const SCHEMA_FILES = [
  'common',
  'paths',
  'jsonata',
  'choice',
  'fail',
  'parallel',
  'pass',
  'base-state-machine',
  'state-machine',
  'state',
  'succeed',
  'task',
  'wait',
  'map',
  'errors',
] as const;
const STATE_MACHINE_SCHEMA = 'http://asl-validator.cloud/state-machine.json#';
/** Formats of asl-validator's schemas that its `checkPaths` and `checkArn` options turn off (the engine checks them itself). */
const FORMATS_THE_ENGINE_CHECKS = ['asl_path', 'asl_ref_path', 'asl_payload_template', 'asl_result_path', 'asl_arn'];

const require = createRequire(import.meta.url);

/**
 * asl-validator with its JSON schemas compiled once. asl-validator builds a new Ajv and compiles its fifteen
 * schemas at every call: 70-325 ms of the engine's thread for each new definition, during which no run steps
 * and no API call is answered. Its validator calls that check through its module's exports, so the check is
 * replaced there by the same one (same schemas, formats, Ajv options and choice of findings) on one Ajv made at
 * the first call. Only the options the engine passes (`checkPaths` and `checkArn` off) take the compiled
 * schemas; any other call gets asl-validator's own check, unchanged. Loaded at the first call (asl-validator
 * and ajv are a tenth of the engine's start, and a restart that finds its definitions stored validates none).
 * @returns asl-validator's validator
 */
export function aslValidator(): AslValidator {
  return (loaded ??= installCompiledSchemaCheck());
}

let loaded: AslValidator | undefined;

function installCompiledSchemaCheck(): AslValidator {
  const validator = require('asl-validator') as AslValidator;
  // Resolved from asl-validator, so these are the very modules it uses (ajv is its dependency, not ours;
  // jsonata too, in whatever version it resolves to).
  const fromValidator = createRequire(require.resolve('asl-validator'));
  const checks = fromValidator('./checks/json-schema-errors') as { jsonSchemaErrors: SchemaCheck };
  const own = checks.jsonSchemaErrors;
  // Installed already, by another copy of this module (the CommonJS cache is the process's).
  if ((own as { compiledSchemas?: true }).compiledSchemas) return validator;
  const code = (fromValidator('./types') as { StateMachineErrorCode: { SchemaValidationFailed: string } })
    .StateMachineErrorCode.SchemaValidationFailed;
  let validate: ValidateFunction | undefined;
  const compiled: SchemaCheck = (definition, options) => {
    if (options.checkPaths !== false || options.checkArn !== false) return own(definition, options);
    validate ??= compileStateMachineSchema(fromValidator);
    if (validate(definition)) return [];
    return selectFindings(validate.errors ?? []).map((error) => ({
      'Error code': code,
      Message: `${error.instancePath} is invalid. ${error.message ?? ''}`,
      schemaError: { instancePath: error.instancePath, schemaPath: decodeURIComponent(error.schemaPath) },
    }));
  };
  // `uncompiled`: asl-validator's own check, which the tests hold this one to.
  checks.jsonSchemaErrors = Object.assign(compiled, { compiledSchemas: true as const, uncompiled: own });
  return validator;
}

/** asl-validator's Ajv, made and compiled as it makes it for `checkPaths` and `checkArn` off. */
function compileStateMachineSchema(fromValidator: NodeJS.Require): ValidateFunction {
  const Ajv = (fromValidator('ajv') as { default: new (options: object) => AjvInstance }).default;
  const addFormats = (fromValidator('ajv-formats') as { default: (ajv: AjvInstance) => unknown }).default;
  const ajv = new Ajv({
    schemas: SCHEMA_FILES.map((name) => fromValidator(`./schemas/${name}.json`) as object),
    allowUnionTypes: true,
  });
  addFormats(ajv);
  const jsonata = fromValidator('jsonata') as (expression: string) => unknown;
  const isJsonata = (value: string): boolean => {
    let expression = value.trim();
    expression = expression.startsWith('{%') ? expression.slice(2) : expression;
    expression = expression.endsWith('%}') ? expression.slice(0, -2) : expression;
    try {
      jsonata(expression);
      return true;
    } catch {
      return false;
    }
  };
  ajv.addFormat('jsonata_string', isJsonata);
  ajv.addFormat('maybe_jsonata_string', (value: string) => {
    const trimmed = value.trim();
    return trimmed.startsWith('{%') || trimmed.endsWith('%}') ? isJsonata(trimmed) : true;
  });
  for (const format of FORMATS_THE_ENGINE_CHECKS) ajv.addFormat(format, () => true);
  const validate = ajv.getSchema(STATE_MACHINE_SCHEMA);
  if (!validate) throw new Error(`asl-validator's schemas have no ${STATE_MACHINE_SCHEMA}`);
  return validate;
}

/**
 * The errors asl-validator reports of Ajv's: those at the deepest instance path; where one of them is a `oneOf`
 * error, only the `oneOf` errors of its path (each `oneOf` branch fails on its own, and says less); each once.
 */
function selectFindings(errors: readonly ErrorObject[]): ErrorObject[] {
  let selected: ErrorObject[] = [];
  let deepest = 0;
  for (const error of errors) {
    const depth = error.instancePath.split('/').length;
    if (depth === deepest) selected.push(error);
    else if (depth > deepest) selected = [error];
    deepest = Math.max(deepest, depth);
  }
  const oneOfPaths = new Set(selected.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath));
  const seen = new Set<string>();
  return selected.filter((e) => {
    if (e.keyword !== 'oneOf' && oneOfPaths.has(e.instancePath)) return false;
    // Once per schema path and instance path (the decoded schema path, as the finding shows it).
    const key = `${decodeURIComponent(e.schemaPath)}\n${e.instancePath}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
