import { randomUUID } from 'node:crypto';

/** 32 hex characters, the shape of most management API identifiers. */
export function newId(): string {
  return randomUUID().replaceAll('-', '');
}

export function nowIso(): string {
  return new Date().toISOString();
}
