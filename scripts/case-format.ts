/**
 * Writes schemas/case.schema.json, schemas/given.schema.json and the reference tables of
 * docs/case-format.md from the one definition of the case format (runner/model/case-format.ts),
 * and the feature lists of schemas/config.schema.json and clauses.schema.json from
 * runner/model/features.ts. `npm run schemas` runs it; test/runner-case-format.test.ts and
 * test/runner-registries.test.ts fail when a file is not what this would write.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { caseFileSchema, definitions, sharedGivenSchema } from '../runner/model/case-format.ts';
import { FEATURE_NAMES } from '../runner/model/features.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_FILE = path.join(ROOT, 'schemas/case.schema.json');
export const GIVEN_SCHEMA_FILE = path.join(ROOT, 'schemas/given.schema.json');
export const DOC_FILE = path.join(ROOT, 'docs/case-format.md');

/** Hand-written schemas that list the feature names for editors, and where in each the list is. */
export const FEATURE_LISTS = [
  { file: path.join(ROOT, 'schemas/config.schema.json'), at: ['properties', 'features', 'items'] },
  {
    file: path.join(ROOT, 'schemas/clauses.schema.json'),
    at: ['properties', 'clauses', 'items', 'properties', 'feature'],
  },
];

/**
 * The text of a hand-written schema with the feature list at `at` (an `enum`) set to the names
 * of runner/model/features.ts; the rest of the file, and its layout, stay as written.
 */
export function withFeatures(text: string, at: string[], file: string): string {
  const listed: unknown = at.reduce((n: Schema, k) => n?.[k], JSON.parse(text))?.enum;
  if (!Array.isArray(listed)) throw new Error(`${file}: no enum at /${at.join('/')}`);
  const written = new RegExp(
    `"enum":\\s*\\[${listed.map((v) => `\\s*${JSON.stringify(v).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).join('\\s*,')}\\s*\\]`,
  );
  if (!written.test(text)) throw new Error(`${file}: cannot find the enum of /${at.join('/')}`);
  return text.replace(written, `"enum": ${JSON.stringify(FEATURE_NAMES)}`);
}

/** The schema as plain JSON (TypeBox's symbol keys dropped). */
export function generatedSchema(): unknown {
  return JSON.parse(JSON.stringify(caseFileSchema));
}

/** The schema of suites/given.yaml as plain JSON. */
export function generatedGivenSchema(): unknown {
  return JSON.parse(JSON.stringify(sharedGivenSchema));
}

type Schema = Record<string, any>;

/** A schema's type in a few words, for the reference tables. */
function typeOf(s: Schema): string {
  if (s.$ref) return `[${s.$ref.split('/').pop()}](#${s.$ref.split('/').pop()})`;
  if (s.enum) return s.enum.map((v: unknown) => `\`${v}\``).join(' \\| ');
  if ('const' in s) return `\`${JSON.stringify(s.const)}\``;
  if (s.oneOf) return s.oneOf.map(typeOf).join(' or ');
  if (s.if) return `${typeOf(s.then)} or ${typeOf(s.else)}`;
  if (Array.isArray(s.type)) return s.type.join(' or ');
  if (s.type === 'array') {
    const item = typeOf(s.items);
    if (s.minItems === 2 && s.maxItems === 2) return `[${item}, ${item}]`;
    return item.includes(' ') ? `(${item})[]` : `${item}[]`;
  }
  if (s.type === 'object') {
    if (s.properties) return `{${Object.keys(s.properties).join(', ')}}`;
    if (s.additionalProperties && typeof s.additionalProperties === 'object')
      return `{name: ${typeOf(s.additionalProperties)}}`;
    return 'object';
  }
  return s.type ?? 'any';
}

const cell = (text: string) => text.replaceAll('|', '\\|');

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(3, ...rows.map((r) => r[c].length)));
  const line = (r: string[]) => `| ${r.map((v, c) => v.padEnd(widths[c])).join(' | ')} |`;
  return [
    line(rows[0]),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...rows.slice(1).map(line),
  ].join('\n');
}

const refName = (s: Schema): string | undefined => s.$ref?.split('/').pop();

/** The reference table of one definition: key, type, required, description. */
export function referenceTable(name: keyof typeof definitions): string {
  const plain = (x: unknown) => JSON.parse(JSON.stringify(x)) as Schema;
  const s = plain(definitions[name]);
  const kinds = new Set((s.oneOf ?? []).flatMap((b: Schema) => b.required ?? []));
  const rows = Object.entries(s.properties as Record<string, Schema>).map(([key, prop]) => {
    const target = refName(prop) as keyof typeof definitions | undefined;
    // A key that refers to a definition and says nothing itself is described by the definition.
    const description = prop.description ?? (target ? definitions[target].description : undefined) ?? '';
    return [
      `\`${key}\``,
      typeOf(prop),
      kinds.has(key) ? 'one kind' : (s.required ?? []).includes(key) ? 'yes' : '',
      cell(description),
    ];
  });
  return table([['key', 'type', 'required', 'description'], ...rows]);
}

/** Every definition: a heading (the target of the type links), its description, its table. */
export function reference(): string {
  return Object.keys(definitions)
    .map((name) => {
      const { description, properties } = definitions[name as keyof typeof definitions];
      const intro = description ? `\n\n${description}.` : '';
      return `#### ${name}${intro}${properties ? `\n\n${referenceTable(name as keyof typeof definitions)}` : ''}`;
    })
    .join('\n\n');
}

const BEGIN = '<!-- BEGIN generated from runner/model/case-format.ts by npm run schemas -->';
const END = '<!-- END generated -->';

/** The document with its generated part rewritten from the definition. */
export function generatedDoc(doc: string): string {
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/case-format.md: no ${BEGIN} ... ${END}`);
  return `${doc.slice(0, from + BEGIN.length)}\n\n${reference()}\n\n${doc.slice(to)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(SCHEMA_FILE, `${JSON.stringify(generatedSchema(), null, 2)}\n`);
  writeFileSync(GIVEN_SCHEMA_FILE, `${JSON.stringify(generatedGivenSchema(), null, 2)}\n`);
  for (const { file, at } of FEATURE_LISTS)
    writeFileSync(file, withFeatures(readFileSync(file, 'utf8'), at, file));
  // Biome owns the layout of the JSON files; the tests compare the parsed values.
  execFileSync(
    path.join(ROOT, 'node_modules/.bin/biome'),
    ['format', '--write', SCHEMA_FILE, GIVEN_SCHEMA_FILE, ...FEATURE_LISTS.map((l) => l.file)],
    { stdio: 'ignore' },
  );
  writeFileSync(DOC_FILE, generatedDoc(readFileSync(DOC_FILE, 'utf8')));
  console.log(
    'wrote schemas/case.schema.json, schemas/given.schema.json, the feature lists of schemas/config.schema.json and clauses.schema.json, and the reference tables of docs/case-format.md',
  );
}
