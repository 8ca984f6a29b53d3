import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ErrorObject } from 'ajv';
import { type CaseDef, type CheckDef, STEP_KINDS, type StepDef } from '../model/case.ts';
import type { CaseFormatType, StepFormatType } from '../model/case-format.ts';
import { describeErrors, schemas } from '../schema/registry.ts';
import { InputError } from '../util/errors.ts';
import { SUITES_DIR } from '../util/paths.ts';
import { pointerToPath, readYaml, type YamlSource } from './yaml-source.ts';

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
    return toCase(raw as CaseFormatType, src, base, area);
  });
}

/** A step as written (valid against the schema: exactly one kind) as the engine's union, told apart by `kind`. */
function toStep(raw: StepFormatType, src: YamlSource, at: (string | number)[]): StepDef {
  const { api, s3, input, http, wire, bucket, teardown, expect, ...common } = raw;
  const rest = {
    ...common,
    origin: src.where(at),
    expect: expect?.map((c, k): CheckDef => ({ ...c, origin: src.where([...at, 'expect', k]) })),
    teardown: teardown ? toStep(teardown, src, [...at, 'teardown']) : undefined,
  };
  if (api) return { ...rest, kind: 'api', api };
  if (s3 !== undefined) return { ...rest, kind: 's3', s3, input };
  if (http) return { ...rest, kind: 'http', http };
  if (wire) return { ...rest, kind: 'wire', wire };
  if (bucket !== undefined) return { ...rest, kind: 'bucket', bucket };
  throw new InputError(rest.origin, `a step needs exactly one of ${STEP_KINDS.join(', ')}`);
}

function toCase(raw: CaseFormatType, src: YamlSource, base: (string | number)[], area: string): CaseDef {
  return {
    id: raw.id,
    title: raw.title,
    tags: raw.tags ?? [],
    features: raw.features ?? [],
    profiles: raw.profiles ?? ['quick', 'full'],
    readOnly: raw.readOnly ?? false,
    exclusive: raw.exclusive ?? [],
    disruptive: raw.disruptive,
    given: (raw.given ?? []).map((s, k) => toStep(s, src, [...base, 'given', k])),
    steps: raw.steps.map((s, k) => toStep(s, src, [...base, 'steps', k])),
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
