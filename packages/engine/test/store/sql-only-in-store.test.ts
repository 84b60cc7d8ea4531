import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..', '..', '..');
/**
 * Folders of code that could reach a SQLite database; packages/engine/src/store is the one place SQL may live. (The
 * construct holds CloudWatch Metrics Insights queries, which are not a database's SQL.)
 */
const SOURCE_FOLDERS = ['packages/workflow/src', 'packages/engine/src', 'packages/runtime/src', 'packages/local/src'];
const STORE = join('packages', 'engine', 'src', 'store');

/** What marks a line as SQL or as reaching the database directly. */
const SQL_MARKERS = [
  /\bfrom ['"]better-sqlite3['"]/,
  /\.sql\(/,
  /\.prepare\(/,
  /\b(SELECT\s+[\w*(]|INSERT\s+(OR\s+\w+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|CREATE\s+(TABLE|INDEX)\b)/,
];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : tsFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('the store owns the SQL', () => {
  it('finds SQL and database access only under engine/src/store', () => {
    const offending: string[] = [];
    for (const folder of SOURCE_FOLDERS) {
      for (const file of tsFiles(join(ROOT, folder))) {
        const rel = relative(ROOT, file);
        if (rel.startsWith(STORE)) continue;
        readFileSync(file, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (SQL_MARKERS.some((m) => m.test(line))) offending.push(`${rel}:${i + 1}: ${line.trim()}`);
          });
      }
    }
    expect(offending).toEqual([]);
  });
});
