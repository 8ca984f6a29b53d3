import { createRequire } from 'node:module';

/**
 * CommonJS files of packages, loaded where and when they are used: a package's index loads every
 * part of it (undici's fetch, WebSocket and mock agents beside the dispatcher the engine uses), and
 * a run that never compiles YAML need not load a YAML parser. Each is the very module the package's
 * index re-exports, so classes and `instanceof` are the same.
 */
const require = createRequire(import.meta.url);

/** `id` (a package, or a file of one) on first call, then the same module. */
export function onFirstUse<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(id) as T;
    return loaded;
  };
}

type Undici = typeof import('undici');

/** undici's Agent and connector alone (lib/dispatcher/agent.js, lib/core/connect.js), not its index. */
export const undiciAgent = onFirstUse<Undici['Agent']>('undici/lib/dispatcher/agent.js');
export const undiciConnector = onFirstUse<Undici['buildConnector']>('undici/lib/core/connect.js');
export const undiciErrors = onFirstUse<Undici['errors']>('undici/lib/core/errors.js');

/** The YAML parser, for a run that reads YAML (suites not yet compiled, a config, a failure's detail). */
export const yaml = onFirstUse<typeof import('yaml')>('yaml');

/**
 * fast-xml-parser's CommonJS bundle, one file: its ES modules are forty files, about eight times its
 * CPU to load; a run that reads no XML loads neither.
 */
export const fastXml = onFirstUse<typeof import('fast-xml-parser')>('fast-xml-parser');
