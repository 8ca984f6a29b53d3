import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Reporter } from 'vitest/reporters';
import type { NotRun } from './not-run.ts';

/**
 * Ends `npm test` with one line for each test that could not run on this machine (a missing
 * tool, a document that is not beside the clone), naming the command that lets it run. A skip
 * that says nothing reads as a pass.
 */
export class NotRunReporter implements Reporter {
  constructor(private readonly log: string) {}

  onInit(): void {
    writeFileSync(this.log, '');
  }

  onFinished(): void {
    if (!existsSync(this.log)) return;
    const seen = new Set<string>();
    const entries: NotRun[] = [];
    for (const line of readFileSync(this.log, 'utf8').split('\n')) {
      if (!line || seen.has(line)) continue;
      seen.add(line);
      entries.push(JSON.parse(line) as NotRun);
    }
    rmSync(this.log, { force: true });
    if (entries.length === 0) return;
    const out = [`\nNot run on this machine (${entries.length}):`];
    for (const e of entries) out.push(`  - ${e.what}: ${e.why}; to run it: ${e.remedy}`);
    process.stdout.write(`${out.join('\n')}\n`);
  }
}
