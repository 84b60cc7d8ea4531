import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * The JSON file a local service keeps its resources in (SNS topics, EventBridge rules...). Written whole
 * under a temporary name and renamed, so a process killed mid-write leaves the previous file, never half
 * of one; a missing or unreadable file reads as no saved state, because a service starts empty the first
 * time.
 */
export class JsonStateFile<T> {
  constructor(readonly path: string) {}

  /** The saved state, or `undefined` when nothing (readable) was saved. */
  read(): Partial<T> | undefined {
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as Partial<T>;
    } catch {
      return undefined;
    }
  }

  /** Replaces the saved state atomically. */
  write(state: T): void {
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(state));
    renameSync(tmp, this.path);
  }
}
