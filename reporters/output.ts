import { appendFile, writeFile } from 'node:fs/promises';
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
    await (append ? appendFile : writeFile)(dest, text);
    return;
  }
  const out = stream ?? process.stdout;
  // Wait for the write so a process exiting right after close() does not cut the document.
  await new Promise<void>((resolve, reject) => {
    out.write(text, (err?: Error | null) => (err ? reject(err) : resolve()));
  });
}
