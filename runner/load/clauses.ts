import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { isOperatorObject, OPERATORS } from '../match/value.ts';
import type { Clause } from '../model/clause.ts';
import { featureEnumError, isFeature, unknownFeature } from '../model/features.ts';
import { describeErrors, schemas } from '../schema/registry.ts';
import { InputError } from '../util/errors.ts';
import { unknownName } from '../util/nearest.ts';
import { displayPath, SUITES_DIR } from '../util/paths.ts';
import { loadSections, type SectionRegistry } from './sections.ts';
import { pointerToPath, readYaml, type YamlSource } from './yaml-source.ts';

interface ClauseFile {
  area: string;
  clauses: (Omit<Clause, 'origin' | 'area' | 'source' | 'section'> & {
    source?: Clause['source'];
    /** Ids of suites/<area>/sections.yaml. */
    section: string | string[];
  })[];
}

/** Areas are the folders of suites/ (management, s3, deprecations, ...). */
export function listAreas(root = SUITES_DIR): string[] {
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new InputError(
      displayPath(root),
      'not a suites folder: give a folder holding <suite>/clauses.yaml',
    );
  }
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/** Loads suites/<area>/clauses.yaml for the given areas; ids are unique across all of them. */
export function loadClauses(areas: string[], root = SUITES_DIR): Map<string, Clause> {
  const out = new Map<string, Clause>();
  const validate = schemas().validator('clauses.schema.json');
  for (const area of areas) {
    const sections = loadSections(area, root);
    const src = readYaml(path.join(root, area, 'clauses.yaml'), 'clauses');
    citeOwnClause(src.value);
    const words = amazonInWords(src.value);
    if (words) throw new InputError(src.where(['clauses', words.index, 'amazon']), words.problem);
    if (!validate(src.value)) {
      const e = validate.errors![0];
      const at = pointerToPath(e.instancePath);
      const where =
        e.keyword === 'additionalProperties'
          ? src.whereKey([...at, (e.params as { additionalProperty: string }).additionalProperty])
          : src.where(at);
      throw new InputError(
        where,
        featureEnumError(e, at, src.value) ?? `${describeErrors([e])}; see schemas/clauses.schema.json`,
      );
    }
    const doc = src.value as ClauseFile;
    doc.clauses.forEach((c, i) => {
      const origin = src.where(['clauses', i, 'id']);
      if (c.feature !== undefined && !isFeature(c.feature)) {
        throw new InputError(src.where(['clauses', i, 'feature']), unknownFeature(c.feature));
      }
      const amazon = amazonProblem(area, c) ?? amazonMatcherProblem(c);
      if (amazon) throw new InputError(src.where(['clauses', i, 'amazon']), amazon);
      const section = sectionTitle(c.section, sections, src, ['clauses', i, 'section']);
      const prior = out.get(c.id);
      if (prior)
        throw new InputError(
          origin,
          `duplicate clause id '${c.id}' (first at ${prior.origin}); give it a new id`,
        );
      if (c.since && c.until && c.since >= c.until) {
        throw new InputError(origin, `clause '${c.id}' has since ${c.since} not before until ${c.until}`);
      }
      const passive = c.passive?.map((p, j) => ({ ...p, origin: src.where(['clauses', i, 'passive', j]) }));
      out.set(c.id, { ...c, passive, section, source: c.source ?? 'spec', origin, area });
    });
  }
  return out;
}

/** The area whose clauses may say where SPEC departs from Amazon S3. */
export const AMAZON_AREA = 's3';

/**
 * Why a clause may not carry `amazon`: only S3 clauses compare with Amazon S3, and one of source
 * s3 is Amazon S3's own behaviour, so it cannot depart from it.
 */
function amazonProblem(
  area: string,
  c: { id: string; amazon?: unknown; source?: string },
): string | undefined {
  if (c.amazon === undefined) return undefined;
  if (area !== AMAZON_AREA)
    return `clause '${c.id}' is not an S3 clause: only suites/${AMAZON_AREA} compares with Amazon S3; remove amazon`;
  if (c.source === 's3')
    return `clause '${c.id}' has source s3, Amazon S3's own behaviour, so it cannot depart from Amazon S3; remove amazon`;
  return undefined;
}

/**
 * The first clause whose `amazon` is words alone, and how to write it: the words go in `says`,
 * beside the matchers of Amazon S3's answer where the words give it (docs/case-format.md).
 */
function amazonInWords(doc: unknown): { index: number; problem: string } | undefined {
  const clauses = (doc as { clauses?: unknown })?.clauses;
  if (!Array.isArray(clauses)) return undefined;
  const index = clauses.findIndex((c) => typeof (c as { amazon?: unknown })?.amazon === 'string');
  if (index < 0) return undefined;
  const words = (clauses[index] as { amazon: string }).amazon;
  return {
    index,
    problem: `write amazon as { says: ${JSON.stringify(words)} }, with status, error, headers or xml beside says where the words give Amazon S3's answer (see docs/case-format.md)`,
  };
}

/** Why the matchers of Amazon S3's answer cannot be used: an operator no check knows, or a bad regular expression. */
function amazonMatcherProblem(c: Pick<Clause, 'id' | 'amazon'>): string | undefined {
  const { says: _words, ...answer } = c.amazon ?? { says: '' };
  let problem: string | undefined;
  const walk = (v: unknown): void => {
    if (problem || !v || typeof v !== 'object') return;
    if (isOperatorObject(v)) {
      const unknown = Object.keys(v).find((op) => !(OPERATORS as readonly string[]).includes(op));
      if (unknown) problem = `unknown matcher '${unknown}'; known: ${OPERATORS.join(' ')}`;
      else if ('$matches' in v) {
        try {
          new RegExp(String(v.$matches));
        } catch {
          problem = `invalid regular expression ${JSON.stringify(v.$matches)}`;
        }
      }
    }
    Object.values(v).forEach(walk);
  };
  walk(answer);
  return problem && `clause '${c.id}', Amazon S3's answer: ${problem}`;
}

/** A passive check's `expect` is a case check whose clauses default to the clause it is written under. */
function citeOwnClause(doc: unknown): void {
  const clauses = (doc as { clauses?: unknown })?.clauses;
  if (!Array.isArray(clauses)) return;
  for (const c of clauses) {
    const passive = (c as { id?: unknown; passive?: unknown })?.passive;
    if (!Array.isArray(passive)) continue;
    for (const p of passive) {
      const expect = (p as { expect?: Record<string, unknown> })?.expect;
      if (expect && typeof expect === 'object' && expect.clauses === undefined) expect.clauses = [c.id];
    }
  }
}

/** The title(s) of the section id(s) a clause names; an id the area's registry lacks is an error there. */
function sectionTitle(
  ids: string | string[],
  registry: SectionRegistry,
  src: YamlSource,
  at: (string | number)[],
): string {
  const list = typeof ids === 'string' ? [ids] : ids;
  return list
    .map((id, k) => {
      const section = registry.sections.get(id);
      if (section) return section.title;
      const known = [...registry.sections.values()];
      const byTitle = known.find((s) => s.title === id);
      throw new InputError(
        src.where(typeof ids === 'string' ? at : [...at, k]),
        byTitle
          ? `section '${id}' is a title; name the section by its id, '${byTitle.id}'`
          : unknownName(
              'section',
              id,
              known.map((s) => s.id),
              `the sections a clause may name are listed in ${registry.file}`,
            ),
      );
    })
    .join('; ');
}
