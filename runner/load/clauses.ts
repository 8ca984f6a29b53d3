import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Clause } from '../model/clause.ts';
import { featureEnumError, isFeature, unknownFeature } from '../model/features.ts';
import { describeErrors, schemas } from '../schema/registry.ts';
import { InputError } from '../util/errors.ts';
import { displayPath, SUITES_DIR } from '../util/paths.ts';
import { pointerToPath, readYaml } from './yaml-source.ts';

interface ClauseFile {
  area: string;
  clauses: (Omit<Clause, 'origin' | 'area' | 'source'> & { source?: Clause['source'] })[];
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
    const src = readYaml(path.join(root, area, 'clauses.yaml'), 'clauses');
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
      const prior = out.get(c.id);
      if (prior)
        throw new InputError(
          origin,
          `duplicate clause id '${c.id}' (first at ${prior.origin}); give it a new id`,
        );
      if (c.since && c.until && c.since >= c.until) {
        throw new InputError(origin, `clause '${c.id}' has since ${c.since} not before until ${c.until}`);
      }
      out.set(c.id, { ...(c as Clause), source: c.source ?? 'spec', origin, area });
    });
  }
  return out;
}
