import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Target } from '../../runner/model/target.ts';

/** The fixture suites of the engine tests. */
export const ENGINE_FIXTURES = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../fixtures/engine',
);

export function fixtureDir(name: string): string {
  return path.join(ENGINE_FIXTURES, name);
}

/** A canary token: a test fails if it ever appears in any output. */
export const CANARY_TOKEN = 'canary-token-7f3a9c1e5b2d4086';

/** A management-only target pointing at an in-test server. */
export function managementTarget(baseUrl: string, extra: Partial<Target> = {}): Target {
  return {
    name: 'in-test server',
    features: [],
    management: { baseUrl, token: CANARY_TOKEN, ids: {} },
    ...extra,
  };
}
