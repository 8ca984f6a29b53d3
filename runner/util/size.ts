import { InputError } from './errors.ts';

const UNITS: Record<string, number> = {
  '': 1,
  B: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  KB: 1000,
  MB: 1e6,
  GB: 1e9,
};

/** Parses 1024, "1024", "5MiB", "1 GiB". */
export function parseSize(value: number | string, where = 'size'): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMG]i?B|B)?\s*$/.exec(String(value));
  if (!m || UNITS[m[2] ?? ''] === undefined) {
    throw new InputError(where, `'${value}' is not a size: write a byte count or e.g. "5MiB"`);
  }
  return Math.round(Number(m[1]) * UNITS[m[2] ?? '']);
}

/** A byte count for people: `512 bytes`, `1.5 KiB`, `412.25 MiB`, `1 GiB`. */
export function formatBytes(n: number): string {
  for (const unit of ['GiB', 'MiB', 'KiB'] as const) {
    if (n >= UNITS[unit]) return `${Number((n / UNITS[unit]).toFixed(2))} ${unit}`;
  }
  return `${n} bytes`;
}
