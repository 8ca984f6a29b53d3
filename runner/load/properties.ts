import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PropertyDef } from '../model/property.ts';
import { errorMessage, InputError } from '../util/errors.ts';
import { displayPath, SUITES_DIR } from '../util/paths.ts';

export interface LoadedProperty {
  def: PropertyDef;
  file: string;
  area: string;
}

/** suites/<area>/properties/*.property.ts: each default-exports PropertyDef[]. */
export async function loadProperties(areas: string[], root = SUITES_DIR): Promise<LoadedProperty[]> {
  const out: LoadedProperty[] = [];
  for (const area of areas) {
    const dir = path.join(root, area, 'properties');
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)
      .filter((n) => n.endsWith('.property.ts'))
      .sort()) {
      const file = path.join(dir, name);
      let mod: { default?: unknown };
      try {
        mod = await import(pathToFileURL(file).href);
      } catch (err) {
        throw new InputError(displayPath(file), `cannot load: ${errorMessage(err).split('\n')[0]}`);
      }
      const defs = mod.default;
      if (!Array.isArray(defs)) {
        throw new InputError(
          displayPath(file),
          'the default export must be an array of properties (PropertyDef[])',
        );
      }
      defs.forEach((def: PropertyDef, i) => {
        if (
          !def ||
          typeof def.id !== 'string' ||
          !Array.isArray(def.clauses) ||
          typeof def.run !== 'function'
        ) {
          throw new InputError(
            `${displayPath(file)} [${i}]`,
            'a property needs id, title, clauses and run(ctx)',
          );
        }
        out.push({ def, file: displayPath(file), area });
      });
    }
  }
  return out;
}
