#!/usr/bin/env node
// npm run bench: runs bench/main.ts through tsx, like the CLI.
import { register } from 'tsx/esm/api';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
await import('../bench/main.ts');
