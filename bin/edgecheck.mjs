#!/usr/bin/env node
// Runs the TypeScript sources directly (tsx), so there is no build step to forget.
import { register } from 'tsx/esm/api';

// The SDK's notice about its own future Node support is not a finding about the target.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { main } = await import('../runner/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
