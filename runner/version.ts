import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './util/paths.ts';

export const VERSION: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
