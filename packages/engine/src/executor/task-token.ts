import { randomBytes } from 'node:crypto';

/** A fresh task token: opaque, URL-safe, 132 characters. */
export const newTaskToken = (): string => `AAAA${randomBytes(96).toString('base64url')}`;
/** The shape every token this engine issued has. */
export const TASK_TOKEN_PATTERN = /^AAAA[A-Za-z0-9_-]{128}$/;
