import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { SCHEMAS_DIR } from '../util/paths.ts';

// ajv-formats is CommonJS: under NodeNext its callable is the `default` of the namespace.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

/**
 * Every schema of schemas/, loaded once and addressed by file name (`dns-record.json`,
 * `envelope.json#/definitions/x`). Validators are compiled on first use and cached.
 */
export class SchemaRegistry {
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();
  readonly files: Set<string>;

  constructor(dir = SCHEMAS_DIR) {
    // Not checked against their meta-schema at each start, which compiles the meta-schema itself:
    // they are the project's own, and test/runner-schemas-valid.test.ts checks each.
    this.ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, validateSchema: false });
    addFormats(this.ajv);
    this.files = new Set();
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
      const schema = JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
      // Each schema is addressable by its file name, so `$ref: "error.json"` works across files.
      this.ajv.addSchema({ ...schema, $id: name }, name);
      this.files.add(name);
    }
  }

  has(ref: string): boolean {
    const [file, fragment] = ref.split('#');
    if (!this.files.has(file)) return false;
    if (!fragment) return true;
    try {
      this.ajv.getSchema(ref);
      return this.ajv.getSchema(ref) !== undefined;
    } catch {
      return false;
    }
  }

  validator(ref: string): ValidateFunction {
    let v = this.cache.get(ref);
    if (!v) {
      v = this.ajv.getSchema(ref);
      if (!v) throw new Error(`no schema '${ref}' in schemas/`);
      this.cache.set(ref, v);
    }
    return v;
  }

  /** Undefined when valid, else a short description of the first errors. */
  check(ref: string, value: unknown): string | undefined {
    const v = this.validator(ref);
    if (v(value)) return undefined;
    return describeErrors(v.errors ?? []);
  }
}

export function describeErrors(errors: ErrorObject[], max = 3): string {
  const parts = errors.slice(0, max).map((e) => {
    const at = e.instancePath || '(root)';
    if (e.keyword === 'additionalProperties') {
      return `${at}: unknown key '${(e.params as { additionalProperty: string }).additionalProperty}'`;
    }
    if (e.keyword === 'enum') {
      return `${at}: ${e.message} (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})`;
    }
    return `${at}: ${e.message}`;
  });
  if (errors.length > max) parts.push(`and ${errors.length - max} more`);
  return parts.join('; ');
}

let shared: SchemaRegistry | undefined;
/** One registry per process: compiling schemas is the expensive part. */
export function schemas(): SchemaRegistry {
  shared ??= new SchemaRegistry();
  return shared;
}
