import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { schemas } from '../runner/schema/registry.ts';
import { SCHEMAS_DIR } from '../runner/util/paths.ts';

const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

// The engine's registry skips the meta-schema check at each start (runner/schema/registry.ts):
// every schema of schemas/ is checked against its meta-schema here instead.
describe('the schemas of schemas/', () => {
  const names = readdirSync(SCHEMAS_DIR).filter((n) => n.endsWith('.json'));

  it.each(names)('%s is a valid JSON Schema', (name) => {
    const ajv = new Ajv({ strict: false, allowUnionTypes: true });
    addFormats(ajv);
    const schema = JSON.parse(readFileSync(path.join(SCHEMAS_DIR, name), 'utf8'));
    expect(ajv.validateSchema(schema), ajv.errorsText(ajv.errors)).toBe(true);
  });

  it('a schema that is not one is found by that check', () => {
    const ajv = new Ajv({ strict: false });
    expect(ajv.validateSchema({ type: 'strnig' })).toBe(false);
    expect(ajv.validateSchema({ properties: [] })).toBe(false);
  });

  it('every one is registered, and compiles', () => {
    expect([...schemas().files].sort()).toEqual([...names].sort());
    for (const name of names) expect(typeof schemas().validator(name)).toBe('function');
  });
});
