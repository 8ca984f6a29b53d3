import { statSync } from 'node:fs';
import { appendFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makeDirs } from '../runner/util/dirs.ts';

/**
 * Where a file reporter writes: a path (parent directories created; added to its end with
 * `append`) or, without one, a stream.
 */
export async function writeOutput(
  text: string,
  dest: string | undefined,
  stream?: NodeJS.WritableStream,
  append = false,
) {
  if (dest) {
    makeDirs(dirname(dest));
    if (append) {
      await appendFile(dest, text);
      return;
    }
    // A device or pipe (/dev/stdout) is written as it is.
    const existing = statSync(dest, { throwIfNoEntry: false });
    if (existing && !existing.isFile()) {
      await writeFile(dest, text);
      return;
    }
    // Written beside and renamed over: a reader (another run's `clauses`) never sees half a document.
    const partial = `${dest}.${process.pid}.${Date.now()}.partial`;
    await writeFile(partial, text);
    await rename(partial, dest);
    return;
  }
  const out = stream ?? process.stdout;
  // Wait for the write so a process exiting right after close() does not cut the document.
  await new Promise<void>((resolve, reject) => {
    out.write(text, (err?: Error | null) => (err ? reject(err) : resolve()));
  });
}
