import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

/**
 * Layers with one direction (docs/architecture.md). The engine (runner/) imports no reporter, no
 * CLI and no reference; reporters see only the engine's result model and its leaf helpers
 * (runner/util/, which imports nothing of the project); the reference meets the engine only over
 * HTTP; only the CLI wires them. Type-only imports count too: they are what couples a layer.
 */
const RULES: IForbiddenRuleType[] = [
  {
    name: 'engine-imports-no-outer-layer',
    severity: 'error',
    from: { path: '^runner/' },
    to: { path: '^(reporters|reference|cli|bin)/' },
  },
  {
    name: 'reporters-see-only-the-result-model',
    severity: 'error',
    from: { path: '^reporters/' },
    to: { path: '^(runner|reference|cli|bin|suites)/', pathNot: '^runner/(model|util)/' },
  },
  {
    name: 'engine-helpers-are-a-leaf',
    severity: 'error',
    from: { path: '^runner/util/' },
    to: { path: '^(runner|reporters|reference|cli|bin|suites)/', pathNot: '^runner/util/' },
  },
  {
    name: 'reference-meets-the-engine-only-over-http',
    severity: 'error',
    from: { path: '^reference/' },
    to: { path: '^(runner|reporters|cli|bin|suites)/' },
  },
  {
    // edgecheck/kit resolves to runner/kit.ts; that the specifier is the package's is checked by
    // suite-imports-through-kit.test.ts.
    name: 'suites-import-only-the-kit',
    severity: 'error',
    from: { path: '^suites/' },
    to: { path: '^(runner|reporters|reference|cli|bin)/', pathNot: '^runner/kit[.]ts$' },
  },
  {
    name: 'only-bin-tests-and-bench-import-the-cli',
    severity: 'error',
    // The benchmark measures the product as the CLI drives it (several targets in one run).
    from: { pathNot: '^(bin|test|bench|cli)/' },
    to: { path: '^cli/' },
  },
  {
    // The CLI reaches each engine through its one entry; the result model and the leaf helpers
    // are everyone's.
    name: 'cli-reaches-engines-through-their-entries',
    severity: 'error',
    from: { path: '^cli/' },
    to: {
      path: '^runner/',
      pathNot:
        '^runner/(api[.]ts|version[.]ts|diff/index[.]ts|sweep/index[.]ts|passive/index[.]ts|model/|util/)',
    },
  },
  {
    name: 'the-run-engine-imports-no-other-engine',
    severity: 'error',
    from: { path: '^runner/(run/|api[.]ts|kit[.]ts)' },
    to: { path: '^runner/(diff|sweep|passive)/' },
  },
  {
    name: 'the-diff-engine-imports-no-other-engine',
    severity: 'error',
    from: { path: '^runner/diff/' },
    to: { path: '^runner/(run/|sweep/|passive/|api[.]ts)' },
  },
  {
    name: 'the-sweep-engine-imports-no-other-engine',
    severity: 'error',
    from: { path: '^runner/sweep/' },
    to: { path: '^runner/(run/|diff/|passive/|api[.]ts)' },
  },
  {
    name: 'the-passive-engine-imports-no-other-engine',
    severity: 'error',
    from: { path: '^runner/passive/' },
    to: { path: '^runner/(run/|diff/|sweep/|api[.]ts|kit[.]ts)' },
  },
  {
    name: 'shared-pieces-import-no-engine',
    severity: 'error',
    from: { path: '^runner/(model|steps|transports|load|results|match|template|schema|data|util)/' },
    to: { path: '^runner/(run/|diff/|sweep/|passive/|api[.]ts|kit[.]ts)' },
  },
  {
    // Scripts (npm run tables, schemas, check:fresh) and the benchmark are leaves that bin/ and the
    // tests start: nothing the package runs imports them.
    name: 'nothing-imports-scripts-or-bench',
    severity: 'error',
    from: { pathNot: '^(test|scripts|bench|bin)/' },
    to: { path: '^(scripts|bench)/' },
  },
  { name: 'no-cycles', severity: 'error', from: {}, to: { circular: true } },
];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LAYERS = ['runner', 'reporters', 'reference', 'cli', 'suites', 'bin', 'scripts', 'bench'];

/** Each broken rule as "rule: from -> to" (a cycle as its first step). */
async function violations(baseDir: string, roots: string[]): Promise<string[]> {
  const { output } = await cruise(roots, {
    baseDir,
    validate: true,
    ruleSet: { forbidden: RULES },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
  });
  const result = output as ICruiseResult;
  return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('layers', () => {
  it('every import points one way and none forms a cycle', async () => {
    expect(await violations(ROOT, LAYERS)).toEqual([]);
  }, 60_000);

  it('fails on a reverse import and on a cycle (a planted tree)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edgecheck-layers-'));
    try {
      const files: Record<string, string> = {
        'runner/model/results.ts': 'export type R = 1;\n',
        'runner/api.ts': "import type { Report } from '../reporters/console.ts';\nexport type A = Report;\n",
        'reporters/console.ts':
          "import type { R } from '../runner/model/results.ts';\nimport { go } from '../runner/api-value.ts';\nexport type Report = R;\nexport const g = go;\n",
        'runner/api-value.ts': 'export const go = 1;\n',
        'runner/util/dirs.ts': "import { go } from '../api-value.ts';\nexport const d = go;\n",
        'reporters/output.ts': "import { d } from '../runner/util/dirs.ts';\nexport const o = d;\n",
        'reference/server.ts': "import type { R } from '../runner/model/results.ts';\nexport type S = R;\n",
        'runner/match/pointer.ts': "import { b } from './value.ts';\nexport const a = () => b;\n",
        'runner/match/value.ts': "import { a } from './pointer.ts';\nexport const b = () => a;\n",
        'suites/s3/p.property.ts': "import { go } from '../../runner/api-value.ts';\nexport const p = go;\n",
        'cli/embedded.ts': "import { go } from '../runner/api-value.ts';\nexport const e = go;\n",
        'reference/worker.ts': "import { e } from '../cli/embedded.ts';\nexport const w = e;\n",
        'cli/lint.ts': "import { l } from '../runner/load/suite.ts';\nexport const c = l;\n",
        'runner/load/suite.ts': "import { t } from '../run/teardown.ts';\nexport const l = t;\n",
        'runner/run/teardown.ts': "import { f } from '../diff/find.ts';\nexport const t = f;\n",
        'runner/diff/find.ts': "import { s } from '../sweep/sweep.ts';\nexport const f = s;\n",
        'runner/sweep/sweep.ts': 'export const s = 1;\n',
        'reporters/table.ts': "import { x } from '../scripts/tables.ts';\nexport const r = x;\n",
        'scripts/tables.ts': 'export const x = 1;\n',
      };
      for (const [path, text] of Object.entries(files)) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), text);
      }
      const found = await violations(
        dir,
        LAYERS.filter((l) => l !== 'bin' && l !== 'bench'),
      );
      expect(found).toEqual(
        [
          'engine-imports-no-outer-layer: runner/api.ts -> reporters/console.ts',
          'reporters-see-only-the-result-model: reporters/console.ts -> runner/api-value.ts',
          'engine-helpers-are-a-leaf: runner/util/dirs.ts -> runner/api-value.ts',
          'reference-meets-the-engine-only-over-http: reference/server.ts -> runner/model/results.ts',
          'reference-meets-the-engine-only-over-http: reference/worker.ts -> cli/embedded.ts',
          'only-bin-tests-and-bench-import-the-cli: reference/worker.ts -> cli/embedded.ts',
          'suites-import-only-the-kit: suites/s3/p.property.ts -> runner/api-value.ts',
          'no-cycles: runner/match/pointer.ts -> runner/match/value.ts',
          'cli-reaches-engines-through-their-entries: cli/lint.ts -> runner/load/suite.ts',
          'shared-pieces-import-no-engine: runner/load/suite.ts -> runner/run/teardown.ts',
          'the-run-engine-imports-no-other-engine: runner/run/teardown.ts -> runner/diff/find.ts',
          'the-diff-engine-imports-no-other-engine: runner/diff/find.ts -> runner/sweep/sweep.ts',
          'cli-reaches-engines-through-their-entries: cli/embedded.ts -> runner/api-value.ts',
          'nothing-imports-scripts-or-bench: reporters/table.ts -> scripts/tables.ts',
        ].sort(),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
