/**
 * Every ```ts block of the README and docs/ is code a user can paste: it imports only package names (or the user's
 * own files), and it type-checks against the packages' public entries. The names resolve through tsconfig's
 * paths, which mirror each package's exports map (test/unit/packages/package-manifests.test.ts), so a name a block
 * imports that no entry exports, or a path into this repository's folders, fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { tsBlocks, type CodeBlock } from '../../fixtures/docs/ts-blocks';

const ROOT = resolve(import.meta.dirname, '../../..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Module specifiers of a block's imports. */
function importedModules(code: string): string[] {
  const file = ts.createSourceFile('block.ts', code, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  return file.statements.filter(ts.isImportDeclaration).map((s) => (s.moduleSpecifier as ts.StringLiteral).text);
}

/** A package name (scoped or not, with a subpath) or a file of the user's app (relative, outside our folders). */
function isUserImport(specifier: string): boolean {
  if (!specifier.startsWith('.')) return !specifier.startsWith('/');
  return !/(^|\/)(packages|node_modules)(\/|$)/.test(specifier);
}

/**
 * The block with the user's own files (relative imports) declared as `any`: those files are the user's, not ours,
 * and what the check is about is every name the block takes from a package.
 */
function withUserFilesDeclared(code: string): string {
  const file = ts.createSourceFile('block.ts', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  let text = code;
  const relative = file.statements
    .filter(ts.isImportDeclaration)
    .filter((s) => (s.moduleSpecifier as ts.StringLiteral).text.startsWith('.'));
  for (const statement of relative.reverse()) {
    const clause = statement.importClause;
    const names = [
      ...(clause?.name ? [clause.name.text] : []),
      ...(clause?.namedBindings && ts.isNamedImports(clause.namedBindings)
        ? clause.namedBindings.elements.map((e) => e.name.text)
        : []),
      ...(clause?.namedBindings && ts.isNamespaceImport(clause.namedBindings) ? [clause.namedBindings.name.text] : []),
    ];
    const declared = names.map((n) => `declare const ${n}: any;`).join(' ');
    text = text.slice(0, statement.getStart(file)) + declared + text.slice(statement.getEnd());
  }
  // A module (top-level await allowed), even for a block with no import or export.
  return `${text}\nexport {};\n`;
}

/** Type errors of each block, checked in one program against the packages' sources, as `file:line message`. */
function typeErrors(blocks: readonly CodeBlock[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!config) throw new Error('tsconfig.json did not parse');
  // The blocks' tests use jest's or vitest's globals (describe, it, expect, beforeAll), as the README says.
  const options: ts.CompilerOptions = {
    ...config.options,
    types: ['node', 'vitest/globals'],
    incremental: false,
    tsBuildInfoFile: undefined,
    noEmit: true,
  };
  const virtual = new Map(blocks.map((b, i) => [join(ROOT, `docs-block-${i}.ts`), b] as const));
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => {
    const block = virtual.get(resolve(name));
    return block
      ? ts.createSourceFile(name, withUserFilesDeclared(block.code), version, true, ts.ScriptKind.TS)
      : getSourceFile(name, version, onError, create);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => virtual.has(resolve(name)) || fileExists(name);
  const program = ts.createProgram([...virtual.keys()], options, host);
  const errors: string[] = [];
  for (const [name, block] of virtual) {
    const diagnostics = [
      ...program.getSyntacticDiagnostics(program.getSourceFile(name)),
      ...program.getSemanticDiagnostics(program.getSourceFile(name)),
    ];
    for (const d of diagnostics) {
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
      errors.push(`${block.doc}:${block.line + line} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return errors;
}

const BLOCKS = DOCS.flatMap((doc) => tsBlocks(doc, readFileSync(join(ROOT, doc), 'utf8')));

describe('the ```ts blocks of README.md and docs/', () => {
  it('are found (the check reads something)', () => {
    expect(BLOCKS.length).toBeGreaterThanOrEqual(10);
  });

  it("import only package names and the user's own files, never this repository's folders", () => {
    const misplaced = BLOCKS.flatMap((b) =>
      importedModules(b.code)
        .filter((m) => !isUserImport(m))
        .map((m) => `${b.doc}:${b.line} ${m}`),
    );
    expect(misplaced).toEqual([]);
  });

  it("type-check against the packages' public entries", () => {
    expect(typeErrors(BLOCKS)).toEqual([]);
  }, 300_000); // one program over the packages' sources: ~60 s on an idle machine of 2 cores, 145 s at load 18
});

describe('the code-block check', () => {
  it('finds ts blocks with their line and only those', () => {
    expect(tsBlocks('x.md', 'text\n```ts\nconst a = 1;\n```\n```bash\nls\n```\n```ts\nlet b;\n```\n')).toEqual([
      { doc: 'x.md', line: 3, code: 'const a = 1;' },
      { doc: 'x.md', line: 9, code: 'let b;' },
    ]);
  });

  it("refuses a path into the repository and takes names and the user's files", () => {
    expect(
      ['@autosave/workflow', 'aws-cdk-lib/aws-dynamodb', './workflows/hello', '../workflows/refund'].every(
        isUserImport,
      ),
    ).toBe(true);
    expect(['../packages/workflow/src', '../../packages/workflow/src/config', '/abs/x'].some(isUserImport)).toBe(false);
  });

  it('reports a name a package does not export', () => {
    expect(
      typeErrors([
        { doc: 'x.md', line: 1, code: "import { noSuchExport } from '@autosave/workflow';\nnoSuchExport();" },
      ]).join('\n'),
    ).toMatch(/x\.md:1 .*noSuchExport/);
  }, 120_000);
});
