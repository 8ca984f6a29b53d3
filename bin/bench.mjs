#!/usr/bin/env node
// npm run bench: runs bench/main.ts through tsx, like the CLI.
import { register } from 'tsx/esm/api';

register();
process.argv.splice(2, 0);
await import('../bench/main.ts');
