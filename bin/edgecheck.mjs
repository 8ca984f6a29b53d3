#!/usr/bin/env node
// The published package runs its build (dist/). A checkout runs its TypeScript sources, so there is
// no build step to forget and an old build never shadows an edit; EDGECHECK_DIST=1 runs a checkout's
// build instead (npm run build).
import { existsSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// The SDK's notice about its own future Node support is not a finding about the target.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const built = new URL('../dist/cli/main.js', import.meta.url);
const fromSource =
  existsSync(new URL('../cli/main.ts', import.meta.url)) &&
  !(process.env.EDGECHECK_DIST === '1' && existsSync(built));
/**
 * The package a failed import names when it is not installed (a bare name Node found in no
 * node_modules); undefined for any other error, a missing file of the checkout's own included.
 */
function missingPackage(err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  const name = /^Cannot find package '([^']+)'/.exec(err.message)?.[1];
  return name && !/^(\.|\/|[a-z]+:)/i.test(name) ? name : undefined;
}

let main;
try {
  // A checkout runs its sources from their build kept in node_modules/.cache (bin/source-build.mjs),
  // made afresh whenever a source changes; EDGECHECK_TSX=1 runs them through tsx instead.
  const { sourceBuild } =
    fromSource && process.env.EDGECHECK_TSX !== '1' ? await import('./source-build.mjs') : {};
  const ownBuild = sourceBuild && (await sourceBuild());
  if (ownBuild) {
    ({ main } = await import(pathToFileURL(path.join(ownBuild, 'cli', 'main.js')).href));
  } else if (fromSource) {
    // Before tsx, so that tsx hands it Node's own answers: suites kept anywhere load as this package's.
    // The build registers them only when it loads such suites (runner/load/properties.ts): hooks put
    // every import of the process through a loader thread.
    module.register('./suite-hooks.mjs', { parentURL: import.meta.url, data: { fromSource } });
    globalThis[Symbol.for('edgecheck.suite-hooks')] = true;
    const { register } = await import('tsx/esm/api');
    register();
    ({ main } = await import('../cli/main.ts'));
  } else {
    ({ main } = await import(built.href));
  }
} catch (err) {
  // A checkout before npm ci, or an install that lost its dependencies: one line, not Node's stack.
  const missing = missingPackage(err);
  if (!missing) throw err;
  const fix = existsSync(new URL('../package-lock.json', import.meta.url))
    ? 'run npm ci first'
    : 'reinstall edgecheck';
  process.stderr.write(`edgecheck: the packages it needs are not installed (${missing} not found); ${fix}\n`);
  process.exit(2);
}
process.exitCode = await main(process.argv.slice(2));
