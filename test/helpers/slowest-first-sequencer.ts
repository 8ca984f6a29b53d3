import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Starts the files test/README.md lists as slowest, in its order, before all the others. Two
 * workers share the files as they come free, so a long file started last keeps one worker busy
 * alone at the end: a fresh clone has no timings of its own, and vitest would start files by their
 * size, which says nothing of what they cost. The README's table is the one list: what each slow
 * file proves and why it costs what it does, and here when it starts.
 */
export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const order = slowestFirst(path.join(this.ctx.config.root, 'test', 'README.md'));
    const rank = (f: TestSpecification) => {
      const i = order.indexOf(path.basename(f.moduleId));
      return i < 0 ? order.length : i;
    };
    const rest = await super.sort(files.filter((f) => rank(f) === order.length));
    const listed = files.filter((f) => rank(f) < order.length).sort((a, b) => rank(a) - rank(b));
    return [...listed, ...rest];
  }
}

/**
 * The file names of the README's table rows (`| \`name.test.ts\` | ...`), top to bottom. A row
 * naming no file here is an error: a renamed file would otherwise drop out of the schedule unseen.
 */
function slowestFirst(readme: string): string[] {
  const rows = readFileSync(readme, 'utf8').matchAll(/^\| `([\w.-]+\.test\.ts)` \|/gm);
  const names = [...rows].map((m) => m[1]);
  const missing = names.filter((n) => !existsSync(path.join(path.dirname(readme), n)));
  if (missing.length)
    throw new Error(`${readme} lists ${missing.join(', ')}: no such test file; rename the row`);
  return names;
}
