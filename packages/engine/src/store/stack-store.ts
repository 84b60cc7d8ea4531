import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** File name of the stack database (deployed resources, Lambda functions and versions) in the data directory. */
export const STACK_DB_FILE = 'stack.sqlite';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS deployments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  stack TEXT NOT NULL,
  assembly_id TEXT NOT NULL,
  assembly_dir TEXT NOT NULL,
  status TEXT NOT NULL,            -- IN_PROGRESS | COMPLETE
  started_ms INTEGER NOT NULL,
  finished_ms INTEGER,
  outputs TEXT                     -- JSON: the template's Outputs, resolved to local values
);
CREATE TABLE IF NOT EXISTS resources (
  logical_id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  physical_id TEXT NOT NULL,
  attributes TEXT NOT NULL,        -- JSON: what Ref/Fn::GetAtt resolve to
  properties TEXT NOT NULL,        -- JSON: the resolved properties it was applied with
  deletion_policy TEXT,            -- the template's DeletionPolicy when it was applied
  update_replace_policy TEXT,
  assembly_id TEXT NOT NULL,       -- the assembly that last created or updated it
  state TEXT NOT NULL,             -- IN_STACK | RETAINED (left behind by DeletionPolicy/UpdateReplacePolicy Retain)
  updated_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS lambda_functions (
  name TEXT PRIMARY KEY,
  config TEXT NOT NULL,            -- JSON LambdaFunctionConfig of $LATEST
  code_sha TEXT NOT NULL,
  assembly_id TEXT NOT NULL,
  last_version INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS lambda_versions (
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  config TEXT NOT NULL,
  code_sha TEXT NOT NULL,
  assembly_id TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  PRIMARY KEY (name, version)
);
`;

/** A deployed resource as the store records it. */
export interface StackResourceRow {
  logical_id: string;
  type: string;
  physical_id: string;
  attributes: string;
  properties: string;
  deletion_policy: string | null;
  update_replace_policy: string | null;
  assembly_id: string;
  state: 'IN_STACK' | 'RETAINED';
  updated_ms: number;
}

/** A deployment (one boot or one `deploy --local`) as the store records it. */
export interface DeploymentRow {
  id: number;
  stack: string;
  assembly_id: string;
  assembly_dir: string;
  status: 'IN_PROGRESS' | 'COMPLETE';
  started_ms: number;
  finished_ms: number | null;
  outputs: string | null;
}

/** A Lambda function's `$LATEST` or one of its published versions. */
export interface LambdaCodeRow {
  name: string;
  version?: number;
  config: string;
  code_sha: string;
  assembly_id: string;
}

/**
 * The durable record of what the stack mode deployed: resources by logical id (with the assembly that
 * produced each), the local Lambda service's functions and immutable versions, and the deployments
 * themselves. Every write is its own transaction on SQLite (WAL, synchronous=FULL), so a kill -9 keeps
 * every step a deployment committed and nothing half-written.
 */
export class StackStore {
  private readonly db: Db;

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    this.db = new Database(join(dataDir, STACK_DB_FILE));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.exec(SCHEMA);
  }

  close(): void {
    this.db.close();
  }

  /** Opens a deployment of `assemblyId` (a rerun of an unfinished one of the same assembly continues it). */
  beginDeployment(stack: string, assemblyId: string, assemblyDir: string, nowMs: number): DeploymentRow {
    const open = this.db
      .prepare(`SELECT * FROM deployments WHERE status = 'IN_PROGRESS' ORDER BY id DESC LIMIT 1`)
      .get() as DeploymentRow | undefined;
    if (open && open.assembly_id === assemblyId) return open;
    const id = Number(
      this.db
        .prepare(
          `INSERT INTO deployments (stack, assembly_id, assembly_dir, status, started_ms) VALUES (?, ?, ?, 'IN_PROGRESS', ?)`,
        )
        .run(stack, assemblyId, assemblyDir, nowMs).lastInsertRowid,
    );
    return this.db.prepare('SELECT * FROM deployments WHERE id = ?').get(id) as DeploymentRow;
  }

  finishDeployment(id: number, nowMs: number, outputs: Readonly<Record<string, string>>): void {
    this.db.transaction(() => {
      this.db
        .prepare(`UPDATE deployments SET status = 'COMPLETE', finished_ms = ?, outputs = ? WHERE id = ?`)
        .run(nowMs, JSON.stringify(outputs), id);
      // An older unfinished deployment is superseded by this one: it is not "in progress" any more.
      this.db
        .prepare(`UPDATE deployments SET status = 'COMPLETE', finished_ms = ? WHERE id < ? AND status = 'IN_PROGRESS'`)
        .run(nowMs, id);
    })();
  }

  /** The newest deployment, finished or not. */
  lastDeployment(): DeploymentRow | undefined {
    return this.db.prepare('SELECT * FROM deployments ORDER BY id DESC LIMIT 1').get() as DeploymentRow | undefined;
  }

  /** The newest finished deployment. */
  lastCompleteDeployment(): DeploymentRow | undefined {
    return this.db.prepare(`SELECT * FROM deployments WHERE status = 'COMPLETE' ORDER BY id DESC LIMIT 1`).get() as
      DeploymentRow | undefined;
  }

  resources(): StackResourceRow[] {
    return this.db.prepare('SELECT * FROM resources ORDER BY logical_id').all() as StackResourceRow[];
  }

  resource(logicalId: string): StackResourceRow | undefined {
    return this.db.prepare('SELECT * FROM resources WHERE logical_id = ?').get(logicalId) as
      StackResourceRow | undefined;
  }

  putResource(row: StackResourceRow): void {
    this.db
      .prepare(
        `INSERT INTO resources (logical_id, type, physical_id, attributes, properties, deletion_policy, update_replace_policy, assembly_id, state, updated_ms)
         VALUES (@logical_id, @type, @physical_id, @attributes, @properties, @deletion_policy, @update_replace_policy, @assembly_id, @state, @updated_ms)
         ON CONFLICT (logical_id) DO UPDATE SET type = excluded.type, physical_id = excluded.physical_id, attributes = excluded.attributes,
           properties = excluded.properties, deletion_policy = excluded.deletion_policy, update_replace_policy = excluded.update_replace_policy, assembly_id = excluded.assembly_id, state = excluded.state, updated_ms = excluded.updated_ms`,
      )
      .run(row);
  }

  /**
   * In one transaction: `next` takes the logical id (a replacement, or an update), and the physical resource
   * it replaces, when a Retain policy keeps it, stays on record as RETAINED (no longer managed by the stack).
   */
  replaceResource(next: StackResourceRow, retained?: StackResourceRow): void {
    this.db.transaction(() => {
      if (retained) this.keepRetained(retained, next.updated_ms);
      this.putResource(next);
    })();
  }

  /** A resource that left the template under a Retain policy: kept, no longer managed under its logical id. */
  retainResource(logicalId: string, nowMs: number): void {
    const row = this.resource(logicalId);
    if (!row) return;
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM resources WHERE logical_id = ?').run(logicalId);
      this.keepRetained(row, nowMs);
    })();
  }

  private keepRetained(row: StackResourceRow, nowMs: number): void {
    // Kept under a name that cannot clash with a template's logical id (those are alphanumeric).
    this.putResource({
      ...row,
      logical_id: `retained:${row.logical_id}:${row.physical_id}`,
      state: 'RETAINED',
      updated_ms: nowMs,
    });
  }

  deleteResource(logicalId: string): void {
    this.db.prepare('DELETE FROM resources WHERE logical_id = ?').run(logicalId);
  }

  lambdaFunction(name: string): (LambdaCodeRow & { last_version: number }) | undefined {
    return this.db.prepare('SELECT * FROM lambda_functions WHERE name = ?').get(name) as
      (LambdaCodeRow & { last_version: number }) | undefined;
  }

  lambdaFunctions(): (LambdaCodeRow & { last_version: number })[] {
    return this.db.prepare('SELECT * FROM lambda_functions ORDER BY name').all() as (LambdaCodeRow & {
      last_version: number;
    })[];
  }

  putLambdaFunction(name: string, config: string, codeSha: string, assemblyId: string): void {
    this.db
      .prepare(
        `INSERT INTO lambda_functions (name, config, code_sha, assembly_id) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET config = excluded.config, code_sha = excluded.code_sha, assembly_id = excluded.assembly_id`,
      )
      .run(name, config, codeSha, assemblyId);
  }

  /** Deletes a function and, as Lambda does, every version of it. */
  deleteLambdaFunction(name: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM lambda_versions WHERE name = ?').run(name);
      this.db.prepare('DELETE FROM lambda_functions WHERE name = ?').run(name);
    })();
  }

  lambdaVersion(name: string, version: number): LambdaCodeRow | undefined {
    return this.db.prepare('SELECT * FROM lambda_versions WHERE name = ? AND version = ?').get(name, version) as
      LambdaCodeRow | undefined;
  }

  lambdaVersions(name?: string): LambdaCodeRow[] {
    return (
      name === undefined
        ? this.db.prepare('SELECT * FROM lambda_versions ORDER BY name, version').all()
        : this.db.prepare('SELECT * FROM lambda_versions WHERE name = ? ORDER BY version').all(name)
    ) as LambdaCodeRow[];
  }

  /**
   * Publishes `$LATEST` as a version in one transaction: the next number (never reused), or — as Lambda
   * does when neither code nor configuration changed since the last version — that version again.
   */
  publishLambdaVersion(name: string, nowMs: number): number {
    return this.db.transaction(() => {
      const fn = this.lambdaFunction(name);
      if (!fn) throw new Error(`No function ${name}`);
      const latest = this.db
        .prepare('SELECT * FROM lambda_versions WHERE name = ? ORDER BY version DESC LIMIT 1')
        .get(name) as LambdaCodeRow | undefined;
      if (latest && latest.code_sha === fn.code_sha && latest.config === fn.config) return latest.version as number;
      const version = fn.last_version + 1;
      this.db
        .prepare(
          'INSERT INTO lambda_versions (name, version, config, code_sha, assembly_id, created_ms) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(name, version, fn.config, fn.code_sha, fn.assembly_id, nowMs);
      this.db.prepare('UPDATE lambda_functions SET last_version = ? WHERE name = ?').run(version, name);
      return version;
    })();
  }

  deleteLambdaVersion(name: string, version: number): void {
    this.db.prepare('DELETE FROM lambda_versions WHERE name = ? AND version = ?').run(name, version);
  }
}
