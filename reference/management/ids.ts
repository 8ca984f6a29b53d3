import { randomUUID } from 'node:crypto';

/** 32 hex characters, the shape of most management API identifiers. */
export function newId(): string {
  return randomUUID().replaceAll('-', '');
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** An ISO timestamp as whole seconds since the epoch (what faults that send the wrong type answer). */
export function epochSeconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}
