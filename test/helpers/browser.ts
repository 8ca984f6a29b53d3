import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/**
 * The browser the report tests open. By default the Chromium that `npm ci` brings inside
 * @sparticuz/chromium (unpacked to the temp folder on first use), so a fresh clone needs no system
 * package; EDGECHECK_CHROMIUM names another build instead (Debian's is /usr/bin/chromium).
 */
export async function launchBrowser(): Promise<Browser> {
  const chosen = process.env.EDGECHECK_CHROMIUM;
  if (chosen && !existsSync(chosen)) {
    throw new Error(
      `EDGECHECK_CHROMIUM=${chosen}: no such file; unset it to use the Chromium npm ci installs`,
    );
  }
  const executablePath = chosen || (await (await import('@sparticuz/chromium')).default.executablePath());
  return chromium.launch({
    executablePath,
    // No sandbox (the tests run as root here); no network of its own: the machine has none, and a
    // report that reached out would show up as a request the test counts.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--no-zygote',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}
