/**
 * The features a target may offer: capabilities a clause (`feature:`), a case or a property
 * (`features:`) needs, and a target declares (config `features:`, `--feature`). This is the one
 * list: the loaders and `edgecheck lint` refuse any other name, with the nearest one, and
 * `edgecheck run --help` lists these. For editors, `npm run schemas` writes the names into
 * schemas/case.schema.json, config.schema.json and clauses.schema.json; tests hold them there.
 */
import { unknownName } from '../util/nearest.ts';

export const FEATURES = [
  {
    name: 'legacy-auth',
    description: 'accepts the legacy key pair (X-Auth-Email + X-Auth-Key) on management API requests',
  },
  {
    name: 'public-buckets',
    description: 'serves buckets at a public URL ({publicUrl}/{bucket}/{key}), with CORS preflight there',
  },
  {
    name: 'virtual-hosted',
    description: 'answers S3 requests addressed virtual-hosted style (<bucket>.<account_host>)',
  },
  {
    name: 'worker-bindings',
    description: "lets workers reach buckets through bindings (put, get, list inside the platform's workers)",
  },
  {
    name: 'migration',
    description: 'offers incremental migration (/buckets/{bucket}/migration of the management API)',
  },
  {
    name: 'raw-wire',
    description:
      'can be sent raw HTTP bytes (a request with both Transfer-Encoding and Content-Length) with no proxy in between that rewrites them',
  },
] as const satisfies readonly { name: string; description: string }[];

export type Feature = (typeof FEATURES)[number]['name'];

export const FEATURE_NAMES: readonly Feature[] = FEATURES.map((f) => f.name);

export function isFeature(name: string): name is Feature {
  return (FEATURE_NAMES as readonly string[]).includes(name);
}

/** `unknown feature 'x' (did you mean 'y'?)`, or the list of features when none is close. */
export function unknownFeature(name: string): string {
  return unknownName('feature', name, FEATURE_NAMES, `known: ${FEATURE_NAMES.join(', ')}`);
}

/**
 * A JSON Schema `enum` error on a feature name (at `/features/0` or `/clauses/3/feature`) as
 * unknownFeature's message; undefined for any other error. `at` is the error's path in `root`.
 */
export function featureEnumError(
  e: { keyword: string },
  at: readonly (string | number)[],
  root: unknown,
): string | undefined {
  const key = at.findLast((k) => typeof k === 'string');
  if (e.keyword !== 'enum' || (key !== 'feature' && key !== 'features')) return undefined;
  const value = at.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], root);
  return typeof value === 'string' ? unknownFeature(value) : undefined;
}
