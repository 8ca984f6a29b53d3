import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { ErrorObject } from 'ajv';
import { type CaseDef, type CheckDef, STEP_KINDS, type StepDef } from '../model/case.ts';
import {
  type CaseFormatType,
  SHARED_GIVEN_FILE,
  type StepFormatType,
  type UseFormatType,
} from '../model/case-format.ts';
import { featureEnumError } from '../model/features.ts';
import { describeErrors, schemas } from '../schema/registry.ts';
import { loadStep } from '../steps/index.ts';
import { InputError } from '../util/errors.ts';
import { unknownName } from '../util/nearest.ts';
import { displayPath, SUITES_DIR } from '../util/paths.ts';
import { pointerToPath, readYaml, type YamlSource } from './yaml-source.ts';

/** Case files of an area: every *.case.yaml below suites/<area>/, in a stable order. */
export function caseFiles(area: string, root = SUITES_DIR): string[] {
  const dir = path.join(root, area);
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.case\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * Loads one case file: one case, or `cases: [...]` with the prerequisites they share under
 * `given`; `{use: NAME}` entries of a given are looked up in `root`/given.yaml. Throws
 * InputError at the first problem.
 */
export function loadCaseFile(file: string, area: string, root = SUITES_DIR): CaseDef[] {
  const src = readYaml(file);
  const doc = src.value as Record<string, unknown> | null;
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new InputError(src.where([]), 'a case file holds one case (id, title, steps) or `cases: [...]`');
  }
  const many = Array.isArray(doc.cases);
  const list = many ? (doc.cases as unknown[]) : [doc];
  const prefix: (string | number)[] = many ? ['cases'] : [];
  if (many) {
    const extra = Object.keys(doc).find((k) => k !== 'cases' && k !== 'given');
    if (extra) {
      throw new InputError(
        src.whereKey([extra]),
        `unknown key '${extra}' beside 'cases'; move it into a case (only given is shared)`,
      );
    }
  }
  const shared = new SharedGiven(path.join(root, SHARED_GIVEN_FILE));
  const fileGiven = many && doc.given !== undefined ? (doc.given as GivenEntry[]) : undefined;
  if (fileGiven) {
    const validate = schemas().validator('case.schema.json#/definitions/file/properties/given');
    if (!validate(fileGiven)) throw schemaError(validate.errors ?? [], src, ['given'], ['given']);
    // Names are looked up once here, so that a wrong one is reported even if every case opts out.
    expandGiven(fileGiven, src, ['given'], shared);
  }
  const validate = schemas().validator('case.schema.json#/definitions/case');
  return list.map((raw, i) => {
    const base = many ? [...prefix, i] : [];
    if (!validate(raw)) throw schemaError(validate.errors ?? [], src, base);
    const c = raw as CaseFormatType;
    if (c.fileGiven !== undefined && !fileGiven) {
      throw new InputError(
        src.whereKey([...base, 'fileGiven']),
        many
          ? 'this file has no given for fileGiven to leave out; remove fileGiven'
          : 'fileGiven belongs to a case of a `cases:` file with a given; remove it',
      );
    }
    if (fileGiven && c.given?.length === 0) {
      throw new InputError(
        src.where([...base, 'given']),
        "an empty given adds nothing to the file's; leave it out, or write fileGiven: false for a case without the file's given",
      );
    }
    const given = [
      ...(fileGiven && c.fileGiven !== false ? expandGiven(fileGiven, src, ['given'], shared) : []),
      ...expandGiven(c.given ?? [], src, [...base, 'given'], shared),
    ];
    return toCase(c, given, src, base, area);
  });
}

type GivenEntry = StepFormatType | UseFormatType;
type Path = (string | number)[];

/**
 * The InputError for ajv's errors on the value at `base` of the file; `shown` is the part of
 * `base` a message names (a case's errors are worded from the case, not the file).
 */
function schemaError(
  errors: ErrorObject[],
  src: YamlSource,
  base: Path,
  shown: Path = [],
  schema = 'schemas/case.schema.json',
): InputError {
  const picked = pickError(errors);
  const e = { ...picked, instancePath: shown.map((k) => `/${k}`).join('') + picked.instancePath };
  // An unknown key is reported where the key is written, not where its object starts.
  const at = [...base, ...pointerToPath(picked.instancePath)];
  const where =
    e.keyword === 'additionalProperties'
      ? src.whereKey([...at, e.params.additionalProperty as string])
      : src.where(at);
  return new InputError(where, featureEnumError(picked, at, src.value) ?? explain(e, schema));
}

/**
 * A given (valid against the schema) as steps: each step as written, each `{use: NAME}` as the
 * steps of NAME. Those carry the `use` entry's place as their origin, so every origin of a case
 * is in its own file.
 */
function expandGiven(entries: GivenEntry[], src: YamlSource, at: Path, shared: SharedGiven): StepDef[] {
  return entries.flatMap((entry, k) => {
    const here = [...at, k];
    if ('use' in entry) {
      const origin = src.where(here);
      return shared.steps(entry.use, src.where([...here, 'use'])).map((s) => toStep(s, () => origin));
    }
    return [toStep(entry, (rel) => src.where([...here, ...rel]))];
  });
}

/**
 * suites/given.yaml: names for lists of steps that several cases need before their own. Read
 * when a case file first uses a name, once per case file, so an edit shows in the next load.
 */
class SharedGiven {
  private named?: Map<string, StepFormatType[]>;

  constructor(private readonly file: string) {}

  /** The steps of `name`; `where` is the `use` that names it, for errors. */
  steps(name: string, where: string): StepFormatType[] {
    const named = this.load(name, where);
    const steps = named.get(name);
    if (steps) return steps;
    const known = [...named.keys()];
    throw new InputError(
      where,
      unknownName(
        'shared prerequisite',
        name,
        known,
        known.length
          ? `${displayPath(this.file)} names ${known.sort().join(', ')}`
          : `${displayPath(this.file)} names none`,
      ),
    );
  }

  private load(name: string, where: string): Map<string, StepFormatType[]> {
    if (this.named) return this.named;
    if (!existsSync(this.file)) {
      throw new InputError(
        where,
        `no ${displayPath(this.file)} to look '${name}' up in; shared prerequisites are named there`,
      );
    }
    const src = readYaml(this.file);
    const validate = schemas().validator('given.schema.json');
    if (!validate(src.value)) {
      throw schemaError(validate.errors ?? [], src, [], [], 'schemas/given.schema.json');
    }
    const named = new Map(Object.entries(src.value as Record<string, StepFormatType[]>));
    for (const [n, steps] of named) {
      const k = steps.findIndex((s) => s.expect !== undefined);
      if (k >= 0) {
        throw new InputError(
          src.whereKey([n, k, 'expect']),
          'a shared prerequisite holds no checks; check its answer in a step of a case',
        );
      }
    }
    this.named = named;
    return named;
  }
}

/** A step's teardown as a list in the order it runs, each with its own origin. */
function teardownSteps(
  raw: StepFormatType | StepFormatType[] | undefined,
  where: (rel: Path) => string,
): StepDef[] | undefined {
  if (!raw) return undefined;
  if (!Array.isArray(raw)) return [toStep(raw, (rel) => where(['teardown', ...rel]))];
  return raw.map((t, i) => toStep(t, (rel) => where(['teardown', i, ...rel])));
}

/**
 * A step as written (valid against the schema: exactly one kind) as the engine's union, told
 * apart by `kind`. `where` gives the origin of a path inside the step.
 */
function toStep(raw: StepFormatType, where: (rel: Path) => string): StepDef {
  const { api, s3, input, http, wire, binding, bucket, teardown, expect, ...common } = raw;
  return loadStep(raw, {
    ...common,
    origin: where([]),
    expect: expect?.map((c, k): CheckDef => ({ ...c, origin: where(['expect', k]) })),
    teardown: teardownSteps(teardown, where),
  });
}

function toCase(raw: CaseFormatType, given: StepDef[], src: YamlSource, base: Path, area: string): CaseDef {
  return {
    id: raw.id,
    title: raw.title,
    tags: raw.tags ?? [],
    features: raw.features ?? [],
    profiles: raw.profiles ?? ['quick', 'full'],
    readOnly: raw.readOnly ?? false,
    exclusive: raw.exclusive ?? [],
    disruptive: raw.disruptive,
    given,
    steps: raw.steps.map((s, k) => toStep(s, (rel) => src.where([...base, 'steps', k, ...rel]))),
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
  // A given entry is a step or a use, told apart by if/then/else: the `if` only says which failed.
  const concrete = errors.filter(
    (e) => e.keyword !== 'oneOf' && e.keyword !== 'if' && !e.schemaPath.includes('/oneOf/'),
  );
  const oneOfs = errors.filter((e) => e.keyword === 'oneOf');
  const pool = concrete.length ? concrete : oneOfs.length ? oneOfs : errors;
  return pool.reduce((a, b) => (b.instancePath.length > a.instancePath.length ? b : a));
}

function explain(e: ErrorObject, schema: string): string {
  if (
    e.keyword === 'oneOf' &&
    /\/(given|steps)\/\d+$|\/teardown(\/\d+)?$|^\/[a-z][a-z0-9-]*\/\d+$/.test(e.instancePath)
  ) {
    const inGiven = /\/given\/\d+$/.test(e.instancePath) ? ', or be {use: NAME}' : '';
    return `a step needs exactly one of ${STEP_KINDS.join(', ')}${inGiven}; see docs/case-format.md`;
  }
  if (e.keyword === 'additionalProperties' && e.schemaPath.startsWith('#/definitions/use/')) {
    return `a {use: NAME} entry holds only use, not '${e.params.additionalProperty}'; write that step as an entry of its own`;
  }
  if (e.keyword === 'oneOf' && /\/capture\//.test(e.instancePath)) {
    return 'a capture is a JSON pointer string or one of {json|header|xml|output: ...}, {status: true}';
  }
  return `${describeErrors([e])}; see ${schema}`;
}
