/**
 * docs/testing.md's "Mocking a tool step" example runs as it is written (issue 32, item 5): its ```ts block is
 * read from the document and run through the engine with its mock config, so the documented mock of a tool step
 * (`Payload: { result, source }`) cannot drift from what the tool-step function answers and the run records.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';
import * as testing from '@autosave/local/testing';
import * as workflow from '@autosave/workflow';
import { tsBlocks } from '../../fixtures/docs/ts-blocks';

const ROOT = resolve(import.meta.dirname, '../../..');
const DOC = 'docs/testing.md';
const SECTION = '### Mocking a tool step';

/** The modules the example may import, as this test loaded them (the names resolve to the packages' sources). */
const MODULES: Record<string, unknown> = { '@autosave/local/testing': testing, '@autosave/workflow': workflow };

/** The first ```ts block after the section's heading. */
function exampleBlock(): string {
  const markdown = readFileSync(join(ROOT, DOC), 'utf8');
  const at = markdown.indexOf(`\n${SECTION}\n`);
  if (at < 0) throw new Error(`${DOC} has no "${SECTION}" section`);
  const before = markdown.slice(0, at).split('\n').length;
  const block = tsBlocks(DOC, markdown).find((b) => b.line > before);
  if (!block) throw new Error(`${DOC}: no ts block after "${SECTION}"`);
  return block.code;
}

/**
 * Runs a block of top-level code: its imports become reads of {@link MODULES}, its TypeScript is stripped, and its
 * body runs as an async function that returns the value of `expression` at its end.
 */
async function runBlock(code: string, expression: string): Promise<unknown> {
  const file = ts.createSourceFile('block.ts', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  let body = code;
  for (const statement of file.statements.filter(ts.isImportDeclaration).reverse()) {
    const name = (statement.moduleSpecifier as ts.StringLiteral).text;
    if (!(name in MODULES)) throw new Error(`the example imports ${name}, which this test does not provide`);
    const bindings = statement.importClause?.namedBindings;
    const names = bindings && ts.isNamedImports(bindings) ? bindings.elements.map((e) => e.name.text) : [];
    const replacement = `const { ${names.join(', ')} } = modules[${JSON.stringify(name)}];`;
    body = body.slice(0, statement.getStart(file)) + replacement + body.slice(statement.getEnd());
  }
  const js = ts.transpileModule(`${body}\nreturn ${expression};`, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.None },
    reportDiagnostics: false,
  }).outputText;
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
    ...args: string[]
  ) => (modules: Record<string, unknown>) => Promise<unknown>;
  return new AsyncFunction('modules', js)(MODULES);
}

it('runs the documented tool-step mock: the run succeeds and records the mocked result as the step’s', async () => {
  const steps = await runBlock(exampleBlock(), 'steps');
  expect(steps).toEqual({ send: { messageId: 'm-1' } });
});
