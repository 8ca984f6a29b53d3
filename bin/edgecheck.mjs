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
// A checkout runs its sources from their build kept in node_modules/.cache (bin/source-build.mjs),
// made afresh whenever a source changes; EDGECHECK_TSX=1 runs them through tsx instead.
const { sourceBuild } =
  fromSource && process.env.EDGECHECK_TSX !== '1' ? await import('./source-build.mjs') : {};
const ownBuild = sourceBuild && (await sourceBuild());
let main;
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
process.exitCode = await main(process.argv.slice(2));
