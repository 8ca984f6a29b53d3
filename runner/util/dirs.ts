import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Creates a folder and its missing parents one level at a time. (Node 20's recursive mkdir
 * can spin forever on pseudo file systems such as /proc; this cannot.) Throws when it fails.
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  let cur = path.resolve(dir);
  for (;;) {
    try {
      if (!statSync(cur).isDirectory())
        throw Object.assign(new Error(`${cur} is not a folder`), { code: 'ENOTDIR' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      missing.unshift(cur);
      const up = path.dirname(cur);
      if (up === cur) throw err;
      cur = up;
    }
  }
  for (const d of missing) mkdirSync(d);
}

/** Whether files can be written in `dir` (created if missing). */
export function writableDir(dir: string): boolean {
  try {
    makeDirs(dir);
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
