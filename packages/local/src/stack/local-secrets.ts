import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the stack mode keeps each secret's value: `<data>/secrets/<sha-of-name>`. */
export const SECRETS_DIR = 'secrets';
/** Parameter Store serves Secrets Manager secrets under this prefix (`GetParameter`). */
export const SECRETS_MANAGER_REFERENCE_PREFIX = '/aws/reference/secretsmanager/';

const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';

/** `GenerateSecretString` as Secrets Manager reads it (the options the stack mode honours). */
export interface GenerateSecretStringOptions {
  readonly PasswordLength?: number;
  readonly ExcludePunctuation?: boolean;
  readonly ExcludeNumbers?: boolean;
  readonly ExcludeCharacters?: string;
  readonly SecretStringTemplate?: string;
  readonly GenerateStringKey?: string;
}

/** A random password as `GenerateSecretString` makes it (default length 32, all printable classes). */
export function generateSecretString(options: GenerateSecretStringOptions = {}): string {
  let alphabet = LETTERS + (options.ExcludeNumbers ? '' : DIGITS) + (options.ExcludePunctuation ? '' : PUNCTUATION);
  if (options.ExcludeCharacters)
    alphabet = [...alphabet].filter((c) => !options.ExcludeCharacters!.includes(c)).join('');
  const length = options.PasswordLength ?? 32;
  const bytes = randomBytes(length * 2);
  let password = '';
  for (let i = 0; password.length < length; i++) password += alphabet[bytes[i % bytes.length] % alphabet.length];
  if (options.SecretStringTemplate && options.GenerateStringKey) {
    return JSON.stringify({ ...JSON.parse(options.SecretStringTemplate), [options.GenerateStringKey]: password });
  }
  return password;
}

/**
 * The stack's Secrets Manager secrets, kept in the data directory: generated once (as CloudFormation
 * does at create), the same value at every later boot, served to functions through the local
 * Parameter Store reference path and `GetSecretValue`.
 */
export class LocalSecrets {
  constructor(private readonly dataDir: string) {}

  private file(name: string): string {
    return join(this.dataDir, SECRETS_DIR, Buffer.from(name).toString('base64url'));
  }

  /** Creates the secret unless it exists (the first writer wins: a rerun keeps the value). */
  ensure(name: string, value: () => string): void {
    mkdirSync(join(this.dataDir, SECRETS_DIR), { recursive: true });
    try {
      writeFileSync(this.file(name), value(), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }

  /** The secret's value, or undefined when there is no such secret. */
  get(name: string): string | undefined {
    try {
      return readFileSync(this.file(name), 'utf8');
    } catch {
      return undefined;
    }
  }
}
