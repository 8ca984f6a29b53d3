import { afterEach, vi } from 'vitest';

/*
 * Puts back what a test stubbed as soon as it ends. vitest's unstubEnvs and unstubGlobals options do it
 * before the next test, so the last test of a file would leave its stubs to the next file's
 * beforeAll in the same worker (a stubbed TMPDIR made another file's folders in a removed one).
 */
afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});
