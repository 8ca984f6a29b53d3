#!/usr/bin/env node
// npm run bench: runs bench/main.ts through tsx, like the CLI.
import { register } from 'tsx/esm/api';

register();
await import('../bench/main.ts');
