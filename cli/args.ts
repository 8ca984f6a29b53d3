import { type ParseArgsConfig, parseArgs } from 'node:util';
import { InputError } from '../runner/util/errors.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * A string flag followed by a negative number (`--timeout -1`) joined as `--timeout=-1`:
 * parseArgs would take `-1` for an option ("argument is ambiguous"), while the value's own
 * check can say what to write instead.
 */
function joinNegativeValues(argv: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const name = arg.startsWith('--')
      ? arg.slice(2)
      : /^-[^-]$/.test(arg)
        ? Object.keys(options).find((k) => options[k].short === arg[1])
        : undefined;
    if (name && options[name]?.type === 'string' && /^-[\d.]/.test(argv[i + 1] ?? '')) {
      out.push(`--${name}=${argv[++i]}`);
    } else out.push(arg);
  }
  return out;
}

/** node:util parseArgs, with its errors turned into one-line input errors that name the flag. */
export function parse<T extends Options>(command: string, argv: string[], options: T, positionals = false) {
  try {
    return parseArgs({
      args: joinNegativeValues(argv, options),
      options,
      strict: true as const,
      allowPositionals: positionals,
    });
  } catch (err) {
    const msg = (err as Error).message.split('\n')[0];
    const flag = /'(-{1,2}[^' ]+)/.exec(msg)?.[1] ?? command;
    const hint = `see 'edgecheck ${command} --help'`;
    if (/Unknown option/.test(msg)) throw new InputError(flag, `unknown option; ${hint}`);
    if (/argument missing/.test(msg)) throw new InputError(flag, `needs a value; ${hint}`);
    if (/argument is ambiguous/.test(msg)) {
      throw new InputError(flag, `needs a value; write one that starts with '-' as ${flag}=VALUE; ${hint}`);
    }
    if (/Unexpected argument/.test(msg))
      throw new InputError(command, `unexpected argument ${msg.match(/'([^']+)'/)?.[1] ?? ''}; ${hint}`);
    throw new InputError(flag, `${msg}; ${hint}`);
  }
}

export function date(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ok = /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
  if (!ok || new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value) {
    throw new InputError(`${flag} ${value}`, 'write a date as YYYY-MM-DD, e.g. 2024-06-01');
  }
  return value;
}

/** A whole number in decimal digits only: not -1, 1e3, 0x10, 12abc, " 12" or an empty string. */
export function int(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const shown = value === '' ? "''" : value;
    throw new InputError(`${flag} ${shown}`, `write a whole number from ${min} to ${max}`);
  }
  return n;
}

export function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new InputError(`${flag} ${value}`, `use one of ${allowed.join(', ')}`);
  return value as T;
}

/** `name=value` pairs of a repeatable flag. */
export function pairs(flag: string, values: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const i = v.indexOf('=');
    if (i < 1) throw new InputError(`${flag} ${v}`, 'write name=value');
    out[v.slice(0, i)] = v.slice(i + 1);
  }
  return out;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration, `500ms`, `30s`, `5m`, `1h` or `1d` (a bare number is seconds), in milliseconds. */
export function duration(flag: string, value: string | undefined, minMs: number): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(value);
  const ms = m ? Number(m[1]) * DURATION_UNITS[m[2] ?? 's'] : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms < minMs || ms > 365 * 86_400_000) {
    const shown = value === '' ? "''" : value;
    throw new InputError(
      `${flag} ${shown}`,
      `write a duration of at least ${minMs} ms, such as 30s, 15m, 6h or 1d (a bare number is seconds)`,
    );
  }
  return ms;
}

const BYTE_UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** A size, `65536`, `512K`, `100M` or `2G` (powers of 1024), in bytes. */
export function bytes(flag: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+)([kmg]?)i?b?$/i.exec(value);
  const n = m ? Number(m[1]) * BYTE_UNITS[m[2].toLowerCase()] : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    const shown = value === '' ? "''" : value;
    throw new InputError(`${flag} ${shown}`, `write a size of at least ${min} bytes, such as 64M or 1G`);
  }
  return n;
}
