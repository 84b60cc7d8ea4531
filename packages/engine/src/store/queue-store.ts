import Database from 'better-sqlite3';

/** A queue row; `attributes` is the JSON of the queue's stored attributes. */
export interface QueueRow {
  name: string;
  attributes: string;
  created_at: number;
  modified_at: number;
}

/** A message row. */
export interface MessageRow {
  seq: number;
  queue: string;
  message_id: string;
  body: string;
  message_attributes: string | null;
  sent_at: number;
  visible_at: number;
  receive_count: number;
  first_received_at: number | null;
  receipt_handle: string | null;
}

/** A message to insert. */
export interface NewMessage {
  readonly queue: string;
  readonly messageId: string;
  readonly body: string;
  readonly messageAttributes: string | null;
  readonly sentAt: number;
  readonly visibleAt: number;
}

/** Which messages of a queue to count for its approximate-number attributes. */
export type MessageCountKind = 'visible' | 'in-flight' | 'delayed';

const COUNT_WHERE: Record<MessageCountKind, string> = {
  visible: 'visible_at <= ?',
  'in-flight': 'visible_at > ? AND receive_count > 0',
  delayed: 'visible_at > ? AND receive_count = 0',
};

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS queues (
    name TEXT PRIMARY KEY, attributes TEXT NOT NULL, created_at INTEGER NOT NULL, modified_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, queue TEXT NOT NULL, message_id TEXT NOT NULL, body TEXT NOT NULL,
    message_attributes TEXT, sent_at INTEGER NOT NULL, visible_at INTEGER NOT NULL,
    receive_count INTEGER NOT NULL DEFAULT 0, first_received_at INTEGER, receipt_handle TEXT UNIQUE);
  CREATE INDEX IF NOT EXISTS messages_by_visibility ON messages (queue, visible_at, seq);
  CREATE INDEX IF NOT EXISTS messages_by_sent ON messages (queue, sent_at);
`;

/**
 * The local SQS's durable store: one SQLite file (WAL, synchronous=FULL), so every send, receive, delete
 * and visibility change is committed before it is answered. Its own file, not the engine's: a queue's
 * writes answer a caller synchronously and never wait for the engine's group commit.
 */
export class QueueStore {
  private readonly db: Database.Database;
  private readonly cache = new Map<string, Database.Statement>();

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.exec(SCHEMA);
  }

  private sql(text: string): Database.Statement {
    let s = this.cache.get(text);
    if (!s) {
      s = this.db.prepare(text);
      this.cache.set(text, s);
    }
    return s;
  }

  /** Runs `fn` in one transaction (one fsync). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    this.db.close();
  }

  getQueue(name: string): QueueRow | undefined {
    return this.sql('SELECT * FROM queues WHERE name = ?').get(name) as QueueRow | undefined;
  }
  insertQueue(name: string, attributes: string, nowMs: number): void {
    this.sql('INSERT INTO queues (name, attributes, created_at, modified_at) VALUES (?, ?, ?, ?)').run(
      name,
      attributes,
      nowMs,
      nowMs,
    );
  }
  /** Queue names after `after`, in order. */
  queueNamesAfter(after: string): string[] {
    return (this.sql('SELECT name FROM queues WHERE name > ? ORDER BY name').all(after) as { name: string }[]).map(
      (r) => r.name,
    );
  }
  /** Deletes a queue and its messages. */
  deleteQueue(name: string): void {
    this.transaction(() => {
      this.sql('DELETE FROM messages WHERE queue = ?').run(name);
      this.sql('DELETE FROM queues WHERE name = ?').run(name);
    });
  }
  setQueueAttributes(name: string, attributes: string, nowMs: number): void {
    this.sql('UPDATE queues SET attributes = ?, modified_at = ? WHERE name = ?').run(attributes, nowMs, name);
  }
  countMessages(queue: string, kind: MessageCountKind, nowMs: number): number {
    return (
      this.sql(`SELECT COUNT(*) AS n FROM messages WHERE queue = ? AND ${COUNT_WHERE[kind]}`).get(queue, nowMs) as {
        n: number;
      }
    ).n;
  }
  purge(queue: string): void {
    this.sql('DELETE FROM messages WHERE queue = ?').run(queue);
  }
  insertMessage(m: NewMessage): void {
    this.sql(
      'INSERT INTO messages (queue, message_id, body, message_attributes, sent_at, visible_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(m.queue, m.messageId, m.body, m.messageAttributes, m.sentAt, m.visibleAt);
  }
  deleteExpired(queue: string, sentBeforeMs: number): void {
    this.sql('DELETE FROM messages WHERE queue = ? AND sent_at < ?').run(queue, sentBeforeMs);
  }
  /**
   * The messages visible longest, oldest sent first among equals: the index's own order, so a receive reads
   * `limit` rows however long the backlog (a standard queue promises no order; this one is close to sent order).
   */
  visibleMessages(queue: string, nowMs: number, limit: number): MessageRow[] {
    return this.sql('SELECT * FROM messages WHERE queue = ? AND visible_at <= ? ORDER BY visible_at, seq LIMIT ?').all(
      queue,
      nowMs,
      limit,
    ) as MessageRow[];
  }
  /** Moves a message to another queue as if never received (its dead-letter queue). */
  moveMessage(seq: number, toQueue: string, nowMs: number): void {
    this.sql(
      'UPDATE messages SET queue = ?, receive_count = 0, first_received_at = NULL, receipt_handle = NULL, visible_at = ? WHERE seq = ?',
    ).run(toQueue, nowMs, seq);
  }
  /** Records a receive: hidden until `visibleAt`, under a new receipt handle. */
  markReceived(seq: number, visibleAt: number, firstReceivedAt: number, handle: string): void {
    this.sql(
      'UPDATE messages SET visible_at = ?, receive_count = receive_count + 1, first_received_at = ?, receipt_handle = ? WHERE seq = ?',
    ).run(visibleAt, firstReceivedAt, handle, seq);
  }
  deleteByHandle(queue: string, handle: string): void {
    this.sql('DELETE FROM messages WHERE queue = ? AND receipt_handle = ?').run(queue, handle);
  }
  messageByHandle(queue: string, handle: string): MessageRow | undefined {
    return this.sql('SELECT * FROM messages WHERE queue = ? AND receipt_handle = ?').get(queue, handle) as
      MessageRow | undefined;
  }
  setVisibleAt(seq: number, visibleAt: number): void {
    this.sql('UPDATE messages SET visible_at = ? WHERE seq = ?').run(visibleAt, seq);
  }
}
