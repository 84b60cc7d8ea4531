/**
 * The intrinsic functions of JSONPath states, one table: each entry says how many arguments it takes
 * and computes its value. A bad argument is an `Error` that {@link evaluateIntrinsic} turns into
 * `States.IntrinsicFailure`.
 */
import { isDeepStrictEqual } from 'node:util';
import { IntrinsicFailureError } from '../../errors';
import { hash, parseJson, partition, random, range, uuid } from '../../shared/functions';
import { readPath, type PathRoots } from '../paths';
import { BoundedCache, DEFAULT_EXPRESSION_CACHE_SIZE } from '../../shared/bounded-cache';
import { IntrinsicSyntaxError, parseIntrinsic, type IntrinsicArgument, type IntrinsicCall } from './parse-intrinsic';

/** Longest string `States.Base64Encode`/`Base64Decode`/`Hash` accept (Step Functions' limit). */
export const MAX_INTRINSIC_STRING_LENGTH = 10_000;

interface IntrinsicFunction {
  readonly minArgs: number;
  readonly maxArgs: number;
  /** `args` are evaluated; `call` gives access to literal forms (States.Format's escapes). */
  readonly apply: (args: unknown[], call: IntrinsicCall) => unknown;
}

const string = (value: unknown, what: string): string => {
  if (typeof value !== 'string') throw new Error(`${what} must be a string, got ${JSON.stringify(value)}`);
  return value;
};
const boundedString = (value: unknown, what: string): string => {
  const text = string(value, what);
  if (text.length > MAX_INTRINSIC_STRING_LENGTH)
    throw new Error(`${what} must be at most ${MAX_INTRINSIC_STRING_LENGTH} characters`);
  return text;
};
const integer = (value: unknown, what: string): number => {
  if (!Number.isInteger(value)) throw new Error(`${what} must be an integer, got ${JSON.stringify(value)}`);
  return value as number;
};
/** Java's `Math.round` (half up, also for negatives: -1.5 → -1), which the service applies to numbers it wants whole. */
const roundHalfUp = (value: unknown, what: string): number => {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new Error(`${what} must be a number, got ${JSON.stringify(value)}`);
  return Math.floor(value + 0.5) + 0; // + 0 turns -0 into 0
};
const array = (value: unknown, what: string): unknown[] => {
  if (!Array.isArray(value)) throw new Error(`${what} must be an array, got ${JSON.stringify(value)}`);
  return value;
};
const object = (value: unknown, what: string): Record<string, unknown> => {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
};

/**
 * An argument of `States.Format` as the service prints it: objects and arrays the way Java prints maps
 * and lists (`{Arg1=1, Arg2=[]}`, strings unquoted inside them), everything else as its text.
 */
function formatArgument(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(formatArgument).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}=${formatArgument(v)}`)
      .join(', ')}}`;
  }
  return String(value);
}

/** `States.Format`: `{}` takes the next argument; `\{` and `\}` in a literal template are braces. */
function format(args: unknown[], call: IntrinsicCall): string {
  const first = call.args[0];
  const template = first.kind === 'literal' && first.raw !== undefined ? first.raw : string(args[0], 'the template');
  const values = args.slice(1);
  let out = '';
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const ch = template[i];
    if (ch === '\\' && i + 1 < template.length) {
      out += template[++i];
    } else if (ch === '{' && template[i + 1] === '}') {
      if (next >= values.length) throw new Error('the template has more {} placeholders than arguments');
      out += formatArgument(values[next++]);
      i++;
    } else out += ch;
  }
  if (next !== values.length) throw new Error('there are more arguments than {} placeholders');
  return out;
}

/** Every intrinsic function, by name. */
export const INTRINSIC_FUNCTIONS: Readonly<Record<string, IntrinsicFunction>> = {
  'States.Format': { minArgs: 1, maxArgs: Infinity, apply: format },
  // The service reads a blank string as JSON null.
  'States.StringToJson': {
    minArgs: 1,
    maxArgs: 1,
    apply: ([text]) => (string(text, 'the argument').trim() === '' ? null : parseJson(text)),
  },
  'States.JsonToString': { minArgs: 1, maxArgs: 1, apply: ([value]) => JSON.stringify(value) },
  'States.Array': { minArgs: 0, maxArgs: Infinity, apply: (args) => args },
  'States.ArrayPartition': {
    minArgs: 2,
    maxArgs: 2,
    apply: ([items, size]) => partition(array(items, 'the first argument'), size),
  },
  'States.ArrayContains': {
    minArgs: 2,
    maxArgs: 2,
    apply: ([items, value]) => array(items, 'the first argument').some((item) => isDeepStrictEqual(item, value)),
  },
  'States.ArrayRange': { minArgs: 3, maxArgs: 3, apply: ([start, end, step]) => range(start, end, step) },
  'States.ArrayGetItem': {
    minArgs: 2,
    maxArgs: 2,
    apply: ([items, index]) => {
      const list = array(items, 'the first argument');
      const at = integer(index, 'the index');
      if (at < 0 || at >= list.length) throw new Error(`index ${at} is out of bounds for an array of ${list.length}`);
      return list[at];
    },
  },
  'States.ArrayLength': { minArgs: 1, maxArgs: 1, apply: ([items]) => array(items, 'the argument').length },
  'States.ArrayUnique': {
    minArgs: 1,
    maxArgs: 1,
    apply: ([items]) =>
      array(items, 'the argument').filter(
        (item, i, all) => all.findIndex((other) => isDeepStrictEqual(other, item)) === i,
      ),
  },
  'States.Base64Encode': {
    minArgs: 1,
    maxArgs: 1,
    apply: ([text]) => Buffer.from(boundedString(text, 'the argument'), 'utf8').toString('base64'),
  },
  'States.Base64Decode': {
    minArgs: 1,
    maxArgs: 1,
    apply: ([text]) => {
      const encoded = boundedString(text, 'the argument');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0)
        throw new Error('the argument is not base64');
      return Buffer.from(encoded, 'base64').toString('utf8');
    },
  },
  'States.Hash': {
    minArgs: 2,
    maxArgs: 2,
    apply: ([data, algorithm]) => hash(boundedString(data, 'the data'), algorithm),
  },
  'States.JsonMerge': {
    minArgs: 3,
    maxArgs: 3,
    apply: ([left, right, deep]) => {
      if (deep !== false) throw new Error('only the shallow merge is supported: the third argument must be false');
      return { ...object(left, 'the first argument'), ...object(right, 'the second argument') };
    },
  },
  'States.MathRandom': {
    minArgs: 2,
    maxArgs: 3,
    apply: ([start, end, seed]) => {
      const [low, high] = [roundHalfUp(start, 'start'), roundHalfUp(end, 'end')];
      if (high <= low) throw new Error('end must be greater than start');
      return low + Math.floor(random(seed === undefined ? undefined : integer(seed, 'the seed')) * (high - low));
    },
  },
  'States.MathAdd': {
    minArgs: 2,
    maxArgs: 2,
    apply: ([a, b]) => roundHalfUp(a, 'the first argument') + roundHalfUp(b, 'the second argument'),
  },
  'States.StringSplit': {
    minArgs: 2,
    maxArgs: 2,
    apply: ([text, delimiters]) => {
      const separators = new Set(string(delimiters, 'the delimiter'));
      const parts: string[] = [];
      let current = '';
      for (const ch of string(text, 'the string')) {
        if (separators.has(ch)) {
          if (current) parts.push(current);
          current = '';
        } else current += ch;
      }
      if (current) parts.push(current);
      return parts;
    },
  },
  'States.UUID': { minArgs: 0, maxArgs: 0, apply: () => uuid() },
};

const parsed = new BoundedCache<IntrinsicCall>(DEFAULT_EXPRESSION_CACHE_SIZE);

/**
 * Parses an intrinsic call and checks every function name and argument count in it (used at
 * definition validation too). Throws `States.IntrinsicFailure`.
 */
export function compileIntrinsic(text: string): IntrinsicCall {
  return parsed.getOrCreate(text, () => {
    let call: IntrinsicCall;
    try {
      call = parseIntrinsic(text);
    } catch (err) {
      if (err instanceof IntrinsicSyntaxError) throw new IntrinsicFailureError(err.message, { cause: err });
      throw err;
    }
    const check = (node: IntrinsicArgument): void => {
      if (node.kind !== 'call') return;
      const fn = INTRINSIC_FUNCTIONS[node.name];
      if (!fn) throw new IntrinsicFailureError(`Unknown intrinsic function ${node.name} in '${text}'.`);
      if (node.args.length < fn.minArgs || node.args.length > fn.maxArgs) {
        const expected =
          fn.minArgs === fn.maxArgs
            ? `${fn.minArgs}`
            : fn.maxArgs === Infinity
              ? `at least ${fn.minArgs}`
              : `${fn.minArgs} to ${fn.maxArgs}`;
        throw new IntrinsicFailureError(
          `${node.name} takes ${expected} argument(s), got ${node.args.length} in '${text}'.`,
        );
      }
      node.args.forEach(check);
    };
    check(call);
    return call;
  });
}

function evaluateArgument(arg: IntrinsicArgument, roots: PathRoots, field: string): unknown {
  switch (arg.kind) {
    case 'literal':
      return arg.value;
    case 'path':
      return readPath(arg.path, roots, field);
    case 'call': {
      const args = arg.args.map((inner) => evaluateArgument(inner, roots, field));
      try {
        return INTRINSIC_FUNCTIONS[arg.name].apply(args, arg);
      } catch (err) {
        throw new IntrinsicFailureError(`${arg.name} failed for the field '${field}': ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
  }
}

/** Evaluates an intrinsic call string (the value of a `.$` field) against the path roots. */
export function evaluateIntrinsic(text: string, roots: PathRoots, field: string): unknown {
  return evaluateArgument(compileIntrinsic(text), roots, field);
}
