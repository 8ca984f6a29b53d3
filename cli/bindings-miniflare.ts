import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { BindingsTarget, Target } from '../runner/model/target.ts';

/** The probe worker shipped with the S3 suite (suites/s3/bindings-probe/). */
export const PROBE_SCRIPT = fileURLToPath(new URL('../suites/s3/bindings-probe/probe.mjs', import.meta.url));
/** The date of the probe's wrangler.toml: the flag is then not yet the default, so it is what differs. */
const COMPATIBILITY_DATE = '2022-08-03';

export interface MiniflareProbe {
  /** The probe with the r2_list_honor_include flag. */
  url: string;
  /** The same probe without it. */
  legacyUrl: string;
  /** A fresh secret of this start, for the x-edgecheck-probe-secret header. */
  secret: string;
  close(): Promise<void>;
}

/**
 * Starts the bindings probe twice in Miniflare (workerd) on loopback, with and without the
 * r2_list_honor_include flag, each with an in-memory bucket; close() stops both. Miniflare is
 * loaded here, only when asked for, so that runs without it do not pay for its import.
 */
export async function startMiniflareProbe(): Promise<MiniflareProbe> {
  const { Miniflare } = await import('miniflare');
  const secret = randomBytes(24).toString('hex');
  const start = (flags: string[]) =>
    new Miniflare({
      modules: true,
      scriptPath: PROBE_SCRIPT,
      compatibilityDate: COMPATIBILITY_DATE,
      compatibilityFlags: flags,
      r2Buckets: { BUCKET: 'edgecheck-bindings' },
      bindings: { PROBE_SECRET: secret },
      host: '127.0.0.1',
      port: 0,
    });
  const started: InstanceType<typeof Miniflare>[] = [];
  try {
    started.push(start(['r2_list_honor_include']));
    started.push(start([]));
    const [url, legacyUrl] = await Promise.all(started.map((mf) => mf.ready));
    return {
      url: url.href,
      legacyUrl: legacyUrl.href,
      secret,
      close: async () => {
        await Promise.all(started.map((mf) => mf.dispose()));
      },
    };
  } catch (err) {
    await Promise.allSettled(started.map((mf) => mf.dispose()));
    throw err;
  }
}

/** The target with this bindings probe in place of its own, and the worker-bindings feature it brings. */
export function withBindings(target: Target, bindings: BindingsTarget): Target {
  const features = target.features.includes('worker-bindings')
    ? target.features
    : [...target.features, 'worker-bindings'];
  return { ...target, bindings, features };
}
