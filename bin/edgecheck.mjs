#!/usr/bin/env node
// Runs the TypeScript sources directly (tsx), so there is no build step to forget.
import module from 'node:module';
import { register } from 'tsx/esm/api';

// The SDK's notice about its own future Node support is not a finding about the target.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// Before tsx, so that tsx hands it Node's own answers: suites kept anywhere load as this package's.
module.register('./suite-hooks.mjs', import.meta.url);
register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
