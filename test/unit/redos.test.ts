/**
 * Every regular expression applied to input in the engine, its emulators and the runtime is linear, or runs on
 * input with a known bound: checked with the ReDoS detector recheck (its native or pure-JS backend, offline),
 * not by eye. The sources' regex literals and `new RegExp(...)` sites are read with the TypeScript parser.
 * A vulnerable one fails this test unless it is listed below with the bound of what it reads; a `new RegExp`
 * built from something other than a literal must be listed with how its source is made.
 *
 * Dependencies that see request input: s3rver's bucket-name check is exponential; the S3 proxy answers
 * every name it would check first (services/s3-bucket-names.ts, s3-bucket-names.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { check } from 'recheck';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { stringMatcher } from '../../packages/engine/src/dataflow/jsonpath/choice-rules';
import { matchesEventPattern } from '../../packages/local/src/services/eventbridge/event-pattern';

interface RegexSite {
  readonly where: string;
  readonly source?: string;
  readonly flags?: string;
  /** The code, for a site whose source is not a literal. */
  readonly code?: string;
}

/** Super-linear regexes whose input is bounded, with the bound (key: file and the pattern's source). */
const BOUNDED: Readonly<Record<string, string>> = {
  // Request headers: Node refuses a request whose headers pass 16 KB (http.maxHeaderSize).
  'packages/local/src/services/s3.ts (Credential=)[^/,\\s]+\\/': 'the Authorization header, at most 16 KB',
  'packages/local/src/services/s3.ts ([?&]X-Amz-Credential=)[^&/%]+(%2F|\\/)': 'the request URL, at most 16 KB',
  // A filter term of a definition's path, at most MAX_REWRITTEN_TERM_LENGTH (2,048) characters.
  'packages/engine/src/dataflow/jsonpath/jayway-filters.ts ^(\\s*)(\\S.*?)\\s+=~\\s+(\\/(?:[^/\\\\]|\\\\.)*\\/[a-z]*)(\\s*)$':
    'a filter term, 2,048 characters',
  'packages/engine/src/dataflow/jsonpath/jayway-filters.ts ^(\\s*)(\\S.*?)\\s+(nin|in)\\s+(\\[.*\\])(\\s*)$':
    'a filter term, 2,048 characters',
  'packages/engine/src/dataflow/jsonpath/jayway-filters.ts ^(\\s*)(\\S.*?)\\s+size\\s+(\\d+)(\\s*)$':
    'a filter term, 2,048 characters',
  'packages/engine/src/dataflow/jsonpath/jayway-filters.ts ^(\\s*)(\\S.*?)\\s+(subsetof|anyof|noneof)\\s+(\\[.*\\]|[@$][^\\s]*)(\\s*)$':
    'a filter term, 2,048 characters',
  'packages/engine/src/dataflow/jsonpath/jayway-filters.ts ^(\\s*)(\\S.*?)\\s+empty\\s+(true|false)(\\s*)$':
    'a filter term, 2,048 characters',
  // Its input matched NAME_UNION_LEAF first, so every quote in it is closed (the attack needs an open one).
  'packages/engine/src/dataflow/jsonpath/paths.ts \'((?:[^\'\\\\]|\\\\.)*)\'|"((?:[^"\\\\]|\\\\.)*)"':
    'quoted names already matched whole',
  // The head of an approval page, PAGE_READ_LIMIT (8 KB).
  'packages/local/src/operations/approvals.ts <h1[^>]*>([\\s\\S]*?)<\\/h1>': 'the first 8 KB of a page',
  'packages/local/src/operations/approvals.ts <title[^>]*>([\\s\\S]*?)<\\/title>': 'the first 8 KB of a page',
  'packages/local/src/operations/approvals.ts <p[^>]*>([\\s\\S]*?)<\\/p>': 'the first 8 KB of a page',
  'packages/local/src/operations/approvals.ts <[^>]+>': 'the first 8 KB of a page',
};

/** `new RegExp` sites whose source is not a literal, and how it is made (checked below where it can be). */
const BUILT: Readonly<Record<string, string>> = {
  'packages/engine/src/dataflow/jsonpath/jayway-functions.ts':
    'from the fixed names of the Jayway functions; checked below',
  'packages/engine/src/dataflow/jsonpath/path-syntax.ts': 'from fixed pieces (INTEGER and the like); checked below',
  'packages/local/src/operations/definition-diff.ts':
    'the project\'s own compiled definition, escaped, with [^"]* for each placeholder (which ends at a quote); checked below',
};

function regexSites(): RegexSite[] {
  const files = execFileSync('git', ['ls-files', 'packages/*/src/**.ts'], { encoding: 'utf8' }).trim().split('\n');
  const sites: RegexSite[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const at = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const text = node.getText();
        const end = text.lastIndexOf('/');
        sites.push({ where: at(node), source: text.slice(1, end), flags: text.slice(end + 1) });
      } else if (
        (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === 'RegExp'
      ) {
        const [pattern, flags] = node.arguments ?? [];
        const literal = (n: ts.Expression | undefined) =>
          n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) ? n.text : undefined;
        const text = literal(pattern);
        sites.push(
          text === undefined
            ? { where: at(node), code: node.getText() }
            : { where: at(node), source: text, flags: literal(flags) ?? '' },
        );
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return sites;
}

const sites = regexSites();
const fileOf = (where: string) => where.slice(0, where.lastIndexOf(':'));

describe('regexes applied to input', () => {
  it('are read from the sources (a walk that finds nothing checks nothing)', () => {
    expect(sites.length).toBeGreaterThan(150);
  });

  it('are linear, or listed with the bound of what they read', async () => {
    const vulnerable: string[] = [];
    const bounded = new Set<string>();
    for (const site of sites.filter((s) => s.source !== undefined)) {
      // recheck gives up after 10 s by default ('unknown'), which a loaded machine reaches on the slowest patterns.
      const result = await check(site.source!, site.flags ?? '', { timeout: 120_000 });
      const key = `${fileOf(site.where)} ${site.source}`;
      if (result.status === 'vulnerable' && BOUNDED[key]) bounded.add(key);
      else if (result.status === 'vulnerable') {
        vulnerable.push(
          `${site.where} /${site.source}/${site.flags}: ${result.complexity.type}${'attack' in result ? ` (attack: ${JSON.stringify(result.attack.pattern)})` : ''}`,
        );
      }
    }
    expect(vulnerable).toEqual([]);
    // A listed one that is no longer there, or no longer vulnerable, is taken off the list.
    expect(Object.keys(BOUNDED).filter((key) => !bounded.has(key))).toEqual([]);
  }, 300_000);

  it('built from something other than a literal are the listed ones', () => {
    const built = sites.filter((s) => s.code !== undefined).map((s) => fileOf(s.where));
    expect(built.filter((file) => !BUILT[file])).toEqual([]);
    expect(Object.keys(BUILT).filter((file) => !built.includes(file))).toEqual([]);
  });

  it.each([
    [
      'the Jayway functions',
      String.raw`^(\$.*?)\.(length|size|min|max|avg|stddev|sum|keys|concat|append|first|last|index)\(\)$`,
      '',
    ],
    ['a definition with two placeholders', String.raw`^\{"a":"[^"]*","b":\["[^"]*","x"\]\}$`, ''],
  ])('built ones are linear too: %s', async (_what, source, flags) => {
    expect((await check(source, flags)).status).toBe('safe');
  });

  it("s3rver's bucket-name check is exponential (why the S3 proxy checks names first)", async () => {
    const result = await check('^[a-z0-9]+(.?[-a-z0-9]+)*$', '');
    expect(result.status).toBe('vulnerable');
  });
});

describe('wildcard patterns, matched without a regex', () => {
  // Built as ^a.*a.*...b$, a dozen stars against 20,000 characters would not finish in any time worth waiting.
  const stars = `${'*a'.repeat(12)}*b`;
  const text = 'a'.repeat(20_000);

  it("Choice's StringMatches: a dozen stars against 20,000 characters costs about what one star does", () => {
    const time = (pattern: string) => {
      const started = performance.now();
      for (let i = 0; i < 20; i++) stringMatcher(pattern)(text);
      return performance.now() - started;
    };
    expect(stringMatcher(stars)(text)).toBe(false);
    expect(stringMatcher(stars)(`${text}b`)).toBe(true);
    expect(time(stars)).toBeLessThan(Math.max(time('*b'), 1) * 50);
  });

  it('an EventBridge wildcard rule: the same pattern answers at once', () => {
    const started = performance.now();
    expect(matchesEventPattern({ detail: { s: [{ wildcard: stars }] } }, { detail: { s: text } })).toBe(false);
    expect(matchesEventPattern({ detail: { s: [{ wildcard: stars }] } }, { detail: { s: `${text}b` } })).toBe(true);
    const single = performance.now();
    matchesEventPattern({ detail: { s: [{ wildcard: '*b' }] } }, { detail: { s: text } });
    expect(single - started).toBeLessThan(Math.max(performance.now() - single, 1) * 100);
  });
});
