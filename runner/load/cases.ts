import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ErrorObject } from 'ajv';
import type { CaseDef, CheckDef, StepDef } from '../model/case.ts';
import { SUITES_DIR } from '../paths.ts';
import { describeErrors, schemas } from '../schema/registry.ts';
import { InputError } from '../util/errors.ts';
import { pointerToPath, readYaml, type YamlSource } from './yaml-source.ts';

export const STEP_KINDS = ['api', 's3', 'http', 'wire', 'bucket'] as const;

/** Case files of an area: every *.case.yaml below suites/<area>/, in a stable order. */
export function caseFiles(area: string, root = SUITES_DIR): string[] {
  const dir = path.join(root, area);
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.case\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

/** Loads one case file (one case or `cases: [...]`); throws InputError at the first problem. */
export function loadCaseFile(file: string, area: string): CaseDef[] {
  const src = readYaml(file);
  const doc = src.value as Record<string, unknown> | null;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new InputError(src.where([]), 'a case file holds one case (id, title, steps) or `cases: [...]`');
  }
  const list = Array.isArray(doc.cases) ? doc.cases : [doc];
  const prefix: (string | number)[] = Array.isArray(doc.cases) ? ['cases'] : [];
  if (prefix.length && Object.keys(doc).some((k) => k !== 'cases')) {
    const extra = Object.keys(doc).find((k) => k !== 'cases')!;
    throw new InputError(src.whereKey([extra]), `unknown key '${extra}' beside 'cases'; move it into a case`);
  }
  const validate = schemas().validator('case.schema.json#/definitions/case');
  return list.map((raw, i) => {
    const base = prefix.length ? [...prefix, i] : [];
    if (!validate(raw)) {
      const e = pickError(validate.errors ?? []);
      // An unknown key is reported where the key is written, not where its object starts.
      const at = [...base, ...pointerToPath(e.instancePath)];
      const where =
        e.keyword === 'additionalProperties'
          ? src.whereKey([...at, e.params.additionalProperty as string])
          : src.where(at);
      throw new InputError(where, explain(e));
    }
    return toCase(raw as Record<string, any>, src, base, area);
  });
}

function toCase(raw: Record<string, any>, src: YamlSource, base: (string | number)[], area: string): CaseDef {
  const step = (s: Record<string, any>, at: (string | number)[]): StepDef => ({
    ...s,
    origin: src.where(at),
    expect: (s.expect as Record<string, any>[] | undefined)?.map(
      (c, k): CheckDef => ({ ...(c as CheckDef), origin: src.where([...at, 'expect', k]) }),
    ),
    teardown: s.teardown ? step(s.teardown, [...at, 'teardown']) : undefined,
  });
  return {
    id: raw.id,
    title: raw.title,
    tags: raw.tags ?? [],
    features: raw.features ?? [],
    profiles: raw.profiles ?? ['quick', 'full'],
    readOnly: raw.readOnly ?? false,
    exclusive: raw.exclusive ?? [],
    disruptive: raw.disruptive,
    given: (raw.given ?? []).map((s: Record<string, any>, k: number) => step(s, [...base, 'given', k])),
    steps: raw.steps.map((s: Record<string, any>, k: number) => step(s, [...base, 'steps', k])),
    origin: src.where([...base, 'id']),
    file: src.file,
    area,
  };
}

/**
 * The most useful of ajv's errors: the deepest concrete one; when the only complaints come from
 * the branches of a oneOf (a step with no kind or two, a malformed capture), the oneOf itself,
 * which explain() words for people.
 */
function pickError(errors: ErrorObject[]): ErrorObject {
  const concrete = errors.filter((e) => e.keyword !== 'oneOf' && !e.schemaPath.includes('/oneOf/'));
  const oneOfs = errors.filter((e) => e.keyword === 'oneOf');
  const pool = concrete.length ? concrete : oneOfs.length ? oneOfs : errors;
  return pool.reduce((a, b) => (b.instancePath.length > a.instancePath.length ? b : a));
}

function explain(e: ErrorObject): string {
  if (e.keyword === 'oneOf' && /\/(given|steps)\/\d+$|\/teardown$/.test(e.instancePath)) {
    return `a step needs exactly one of ${STEP_KINDS.join(', ')}; see docs/case-format.md`;
  }
  if (e.keyword === 'oneOf' && /\/capture\//.test(e.instancePath)) {
    return 'a capture is a JSON pointer string or one of {json|header|xml|output: ...}, {status: true}';
  }
  return `${describeErrors([e])}; see schemas/case.schema.json`;
}
