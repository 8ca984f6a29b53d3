import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Where a file reporter writes: a path (parent directories created) or, without one, a stream. */
export async function writeOutput(text: string, dest: string | undefined, stream?: NodeJS.WritableStream) {
  if (dest) {
    await mkdir(dirname(dest), { recursive: true });
    await writeFile(dest, text);
    return;
  }
  const out = stream ?? process.stdout;
  // Wait for the write so a process exiting right after close() does not cut the document.
  await new Promise<void>((resolve, reject) => {
    out.write(text, (err?: Error | null) => (err ? reject(err) : resolve()));
  });
}
