import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { commandFor } from './s3-sdk.ts';

let names: Set<string> | undefined;

/**
 * Whether @aws-sdk/client-s3 has a command of this name (without `Command`). Read from the
 * package's declarations, one file per command, so that linting the cases of every run does not
 * load the SDK itself: a tenth of a second of CPU that a run with no S3 command never needs. A
 * package laid out otherwise is asked directly.
 */
export function isS3Command(name: string): boolean {
  names ??= declaredCommands();
  if (names.size) return names.has(name);
  return commandFor(name) !== undefined;
}

function declaredCommands(): Set<string> {
  try {
    const require = createRequire(import.meta.url);
    const dir = path.join(
      path.dirname(require.resolve('@aws-sdk/client-s3/package.json')),
      'dist-types',
      'commands',
    );
    return new Set(
      readdirSync(dir)
        .filter((f) => f.endsWith('Command.d.ts'))
        .map((f) => f.slice(0, -'Command.d.ts'.length)),
    );
  } catch {
    return new Set();
  }
}
