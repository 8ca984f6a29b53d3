import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEP_KINDS } from '../runner/model/case-format.ts';
import { STEPS } from '../runner/steps/index.ts';
import { PROJECT_ROOT } from './helpers/cli.ts';

/*
 * A step kind lives in one module of runner/steps/, registered in one table (runner/steps/index.ts)
 * that TypeScript holds exhaustive. The recipe of docs/architecture.md names every file a new kind
 * touches: its format (runner/model/case-format.ts), its member of the StepDef union
 * (runner/model/case.ts), its module, and the table. A scratch kind added to a copy of the engine
 * by editing only those files type-checks; left out of the table, it does not.
 */

const run = promisify(execFile);
const TSC = path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const ECHO_MODULE = `import type { StepDef } from '../model/case.ts';
import { emptyBody, StepResponse } from '../transports/response.ts';
import type { StepKind } from './kind.ts';

type EchoStep = Extract<StepDef, { kind: 'echo' }>;

/** A scratch kind: answers its own text, sending nothing. */
export const echoStep: StepKind<EchoStep> = {
  load: (raw, common) => ({ ...common, kind: 'echo', echo: raw.echo! }),
  sent: (step) => step.echo,
  needs: () => undefined,
  captures: 'other',
  footprint: () => ({ reads: [], writes: [], replaces: [] }),
  requests: 0,
  perform: async () => ({ response: new StepResponse(200, {}, emptyBody()), ok: true }),
};
`;

/** Replaces `from` in `file` of the copy, which must hold it. */
async function edit(root: string, file: string, from: string, to: string): Promise<void> {
  const full = path.join(root, file);
  const text = await readFile(full, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} no longer holds ${JSON.stringify(from)}`);
  await writeFile(full, text.replace(from, to));
}

/**
 * Incremental: the second check reuses what the first learned of every file the table's edit does
 * not reach, and reports exactly what a full check would (that is the point of TypeScript's build
 * info), in a fraction of the time.
 */
async function typeCheck(root: string): Promise<{ ok: boolean; output: string }> {
  const args = [TSC, '-p', path.join(root, 'tsconfig.json'), '--incremental'];
  return run(process.execPath, [...args, '--tsBuildInfoFile', path.join(root, 'tsbuildinfo')], {
    cwd: root,
  }).then(
    (r) => ({ ok: true, output: r.stdout }),
    (err: { stdout?: string }) => ({ ok: false, output: err.stdout ?? '' }),
  );
}

describe('a step kind is one module and one table entry', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'edgecheck-step-kind-'));
    await cp(path.join(PROJECT_ROOT, 'runner'), path.join(root, 'runner'), { recursive: true });
    await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    await cp(path.join(PROJECT_ROOT, 'package.json'), path.join(root, 'package.json'));
    const tsconfig = JSON.parse(
      (await readFile(path.join(PROJECT_ROOT, 'tsconfig.json'), 'utf8')).replace(/^\s*\/\/.*$/gm, ''),
    );
    await writeFile(path.join(root, 'tsconfig.json'), JSON.stringify({ ...tsconfig, include: ['runner'] }));
    // The recipe: the format, the union, the module.
    await edit(
      root,
      'runner/model/case-format.ts',
      "'binding', 'bucket'] as const;",
      "'binding', 'bucket', 'echo'] as const;",
    );
    await edit(
      root,
      'runner/model/case-format.ts',
      '  capture: Type.Optional(',
      "  echo: Type.Optional(Type.String({ description: 'A scratch kind' })),\n  capture: Type.Optional(",
    );
    await edit(
      root,
      'runner/model/case.ts',
      "  | Kinded<'bucket'>;",
      "  | Kinded<'bucket'>\n  | Kinded<'echo'>;",
    );
    await writeFile(path.join(root, 'runner/steps/echo.ts'), ECHO_MODULE);
  }, 60_000);

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('every kind of the format has its module in the table, and no other', () => {
    expect(Object.keys(STEPS).sort()).toEqual([...STEP_KINDS].sort());
  });

  it('a kind missing from the table does not compile', async () => {
    const r = await typeCheck(root);
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/runner\/steps\/index\.ts.*echo/s);
  }, 120_000);

  it('registered in the table, the scratch kind compiles with nothing else changed', async () => {
    await edit(
      root,
      'runner/steps/index.ts',
      "import { wireStep } from './wire.ts';",
      "import { wireStep } from './wire.ts';\nimport { echoStep } from './echo.ts';",
    );
    await edit(
      root,
      'runner/steps/index.ts',
      '  binding: bindingStep,\n};',
      '  binding: bindingStep,\n  echo: echoStep,\n};',
    );
    const r = await typeCheck(root);
    expect(r.output).toBe('');
    expect(r.ok).toBe(true);
  }, 120_000);
});
