import { systemClock, type Clock } from '@autosave/workflow/config';

/** How long loaded signing keys are used before they are read again (a rotation reaches warm containers within this). */
export const DEFAULT_SIGNING_KEYS_TTL_MILLIS = 5 * 60_000;

/**
 * A forced re-read comes at most this often: a flood of forged links must not turn into a flood of
 * secret-store reads (Parameter Store's default throughput is 40 reads per second per account).
 */
export const DEFAULT_SIGNING_KEYS_MIN_REFRESH_MILLIS = 30_000;

/** Options of {@link SigningKeys}. */
export interface SigningKeysOptions {
  /** Reads the keys, newest first (the secret store). */
  readonly load: () => Promise<readonly string[]>;
  /** @default {@link DEFAULT_SIGNING_KEYS_TTL_MILLIS} */
  readonly ttlMillis?: number;
  /** @default {@link DEFAULT_SIGNING_KEYS_MIN_REFRESH_MILLIS} */
  readonly minRefreshMillis?: number;
  /** @default systemClock */
  readonly clock?: Clock;
}

/**
 * The approval signing keys of a process (a Lambda container lives for hours): read on first use, read
 * again once the TTL has passed or when asked to ({@link refresh}, on a signature that does not verify:
 * a key may have rotated). A failed read is **never cached**: the next call reads again, and while a
 * once-loaded set exists it stays in use until a read succeeds. Concurrent callers share one read.
 */
export class SigningKeys {
  private keys?: readonly string[];
  private loadedAt = 0;
  private reading?: Promise<readonly string[]>;
  private readonly ttlMillis: number;
  private readonly minRefreshMillis: number;
  private readonly clock: Clock;

  constructor(private readonly options: SigningKeysOptions) {
    this.ttlMillis = options.ttlMillis ?? DEFAULT_SIGNING_KEYS_TTL_MILLIS;
    this.minRefreshMillis = options.minRefreshMillis ?? DEFAULT_SIGNING_KEYS_MIN_REFRESH_MILLIS;
    this.clock = options.clock ?? systemClock;
  }

  /** The keys, read again if older than the TTL. @throws the read's error when no keys were ever loaded */
  async current(): Promise<readonly string[]> {
    if (this.keys && this.clock.now() - this.loadedAt < this.ttlMillis) return this.keys;
    return this.read();
  }

  /**
   * Reads the keys now (shared with a read already under way), unless they were read less than
   * `minRefreshMillis` ago: then the keys just read are the answer.
   */
  async refresh(): Promise<readonly string[]> {
    if (this.keys && this.clock.now() - this.loadedAt < this.minRefreshMillis) return this.keys;
    return this.read();
  }

  private read(): Promise<readonly string[]> {
    this.reading ??= this.options
      .load()
      .then(
        (keys) => {
          this.keys = keys;
          this.loadedAt = this.clock.now();
          return keys;
        },
        (error: unknown) => {
          if (this.keys) return this.keys;
          throw error;
        },
      )
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }
}
