import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Section } from '../model/clause.ts';
import { describeErrors, schemas } from '../schema/registry.ts';
import { InputError } from '../util/errors.ts';
import { displayPath, SUITES_DIR } from '../util/paths.ts';
import { pointerToPath, readYaml } from './yaml-source.ts';

/** The sections of one area, by id, and the file that lists them (for messages). */
export interface SectionRegistry {
  file: string;
  sections: Map<string, Section>;
}

/**
 * Loads suites/<area>/sections.yaml, the closed list of SPEC sections the area's clauses may
 * name (checked against schemas/sections.schema.json; ids unique in the file).
 */
export function loadSections(area: string, root = SUITES_DIR): SectionRegistry {
  const file = path.join(root, area, 'sections.yaml');
  const shown = displayPath(file);
  if (!existsSync(file)) {
    throw new InputError(
      shown,
      `not found: list there the SPEC sections the clauses of ${area} name (see docs/case-format.md)`,
    );
  }
  const src = readYaml(file, 'sections');
  const validate = schemas().validator('sections.schema.json');
  if (!validate(src.value)) {
    const e = validate.errors![0];
    const at = pointerToPath(e.instancePath);
    throw new InputError(
      e.keyword === 'additionalProperties'
        ? src.whereKey([...at, (e.params as { additionalProperty: string }).additionalProperty])
        : src.where(at),
      `${describeErrors([e])}; see schemas/sections.schema.json`,
    );
  }
  const sections = new Map<string, Section>();
  (src.value as { sections: Omit<Section, 'origin'>[] }).sections.forEach((s, i) => {
    const origin = src.where(['sections', i, 'id']);
    const prior = sections.get(s.id);
    if (prior) {
      throw new InputError(
        origin,
        `duplicate section id '${s.id}' (first at ${prior.origin}); give it a new id`,
      );
    }
    sections.set(s.id, { ...s, origin });
  });
  return { file: shown, sections };
}
