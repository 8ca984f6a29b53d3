import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { readCached, writeCached } from '../load/compiled-cache.ts';
import { onFirstUse } from '../util/packages.ts';
import { SCHEMAS_DIR } from '../util/paths.ts';

/** Where a validator's compiled code finds the parts of Ajv and ajv-formats it calls. */
const require = createRequire(import.meta.url);
const ajvPackage = onFirstUse<typeof import('ajv')>('ajv');
// ajv-formats and Ajv's standalone code are CommonJS: their callable is the module itself.
const addFormats = onFirstUse<(ajv: Ajv) => Ajv>('ajv-formats');
const standaloneCode = onFirstUse<(ajv: Ajv, validate: ValidateFunction) => string>('ajv/dist/standalone');

/** Validators' code by schema ref, kept between runs under a key of the schemas and of Ajv. */
interface Kept {
  key: string;
  code: Record<string, string>;
}

/**
 * Every schema of schemas/, addressed by file name (`dns-record.json`, `envelope.json#/definitions/x`).
 * Validators are compiled on first use and cached; their code (Ajv's standalone code, the very
 * function Ajv compiles) is kept between runs beside the compiled suites, so that a run which
 * finds it neither loads Ajv's compiler nor compiles: tens of milliseconds at each start.
 */
export class SchemaRegistry {
  private ajv?: Ajv;
  private kept?: Kept;
  private readonly cache = new Map<string, ValidateFunction>();
  readonly files: Set<string>;

  constructor(private readonly dir = SCHEMAS_DIR) {
    this.files = new Set(readdirSync(dir).filter((n) => n.endsWith('.json')));
  }

  /** Ajv with every schema of the folder, made when a validator is not kept. */
  private compiler(): Ajv {
    if (this.ajv) return this.ajv;
    // Not checked against their meta-schema at each start, which compiles the meta-schema itself:
    // they are the project's own, and test/runner-schemas-valid.test.ts checks each.
    const ajv = new (ajvPackage().Ajv)({
      allErrors: true,
      strict: false,
      allowUnionTypes: true,
      validateSchema: false,
      code: { source: true },
    });
    addFormats()(ajv);
    for (const name of this.files) {
      const schema = JSON.parse(readFileSync(path.join(this.dir, name), 'utf8'));
      // Each schema is addressable by its file name, so `$ref: "error.json"` works across files.
      ajv.addSchema({ ...schema, $id: name }, name);
    }
    this.ajv = ajv;
    return ajv;
  }

  /** The kept validators of these schemas as they are now, with this Ajv. */
  private keptCode(): Kept {
    if (this.kept) return this.kept;
    const hash = createHash('sha256');
    hash.update(`edgecheck validators 1\0${path.resolve(this.dir)}\0`);
    for (const p of ['ajv/package.json', 'ajv-formats/package.json'])
      hash.update(`${(require(p) as { version: string }).version}\0`);
    for (const name of [...this.files].sort()) {
      hash.update(`${name}\0`);
      hash.update(readFileSync(path.join(this.dir, name)));
    }
    const key = hash.digest('hex').slice(0, 32);
    const found = readCached<Kept>(key, 'validators');
    this.kept = found?.key === key && typeof found.code === 'object' ? found : { key, code: {} };
    return this.kept;
  }

  has(ref: string): boolean {
    const [file, fragment] = ref.split('#');
    if (!this.files.has(file)) return false;
    if (!fragment) return true;
    try {
      return this.compiler().getSchema(ref) !== undefined;
    } catch {
      return false;
    }
  }

  validator(ref: string): ValidateFunction {
    let v = this.cache.get(ref);
    if (!v) {
      v = this.keptValidator(ref) ?? this.compile(ref);
      this.cache.set(ref, v);
    }
    return v;
  }

  private keptValidator(ref: string): ValidateFunction | undefined {
    const code = this.keptCode().code[ref];
    return code === undefined ? undefined : instantiate(code);
  }

  /** Compiles `ref` and keeps its code for the next run. */
  private compile(ref: string): ValidateFunction {
    const ajv = this.compiler();
    const v = ajv.getSchema(ref);
    if (!v) throw new Error(`no schema '${ref}' in schemas/`);
    let code: string;
    try {
      code = standaloneCode()(ajv, v);
    } catch {
      return v; // Not expressible as code of its own: compiled each run.
    }
    const kept = this.keptCode();
    kept.code[ref] = code;
    writeCached(kept.key, JSON.stringify(kept), 'validators');
    return instantiate(code);
  }

  /** Undefined when valid, else a short description of the first errors. */
  check(ref: string, value: unknown): string | undefined {
    const v = this.validator(ref);
    if (v(value)) return undefined;
    return describeErrors(v.errors ?? []);
  }
}

/** A validator from its standalone code (a CommonJS module), as Ajv's own compile would give it. */
function instantiate(code: string): ValidateFunction {
  const module = { exports: {} as ValidateFunction };
  new Function('module', 'exports', 'require', code)(module, module.exports, require);
  return module.exports;
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
