import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS package or a JSON file loaded at its first use rather than with the engine: a restarted
 * engine answers the Step Functions API before it evaluates an expression, calls an SDK or checks a new
 * definition, so what only those need stays off its start. Through `require`, not a dynamic `import`:
 * callers are synchronous (a definition is checked as it is created), an ESM `import` of CommonJS makes
 * Node lex the whole source for its named exports first (jsonata: 300 KB, about 25 ms), and a JSON file
 * imported is compiled as JavaScript with the module that imports it (the SDK catalog: 400 KB, at every
 * start), where `require` parses it as JSON when it is first needed.
 * @param id a package, resolved from this package's dependencies; or one of its JSON files, as
 *   `./<path under src/>` (the build copies them to the same place under dist/, beside this module)
 * @returns a function giving the package's exports or the file's value, loading it once
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}
