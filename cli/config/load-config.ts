import path from 'node:path';
import { describeErrors, pointerToPath, readYaml, schemas } from '../../runner/api.ts';
import { featureEnumError, isFeature, unknownFeature } from '../../runner/model/features.ts';
import type { ManagementTarget, S3Target, Target } from '../../runner/model/target.ts';
import { InputError } from '../../runner/util/errors.ts';
import { readInputFile } from '../../runner/util/input-file.ts';

/** The config file's shape (schemas/config.schema.json). */
export interface ConfigFile {
  name?: string;
  /** Several targets by name: a config file's path (relative to this one), `embedded` or `embedded:FAULT,…`. */
  targets?: Record<string, string>;
  management?: {
    baseUrl: string;
    tokenEnv?: string;
    tokenFile?: string;
    emailEnv?: string;
    keyEnv?: string;
    keyFile?: string;
    accountId?: string;
    zoneId?: string;
    ids?: Record<string, string>;
  };
  s3?: {
    endpoint: string;
    publicUrl?: string;
    region?: string;
    addressing?: 'path' | 'virtual';
    accessKeyIdEnv?: string;
    secretAccessKeyEnv?: string;
    secretAccessKeyFile?: string;
  };
  bindings?: {
    url: string;
    legacyUrl?: string;
    bucket?: string;
    secretEnv?: string;
    secretFile?: string;
  };
  features?: string[];
  asOf?: string;
  readOnly?: boolean;
  profile?: 'quick' | 'full';
  concurrency?: number;
  timeoutMs?: number;
  rateLimit?: string;
  maxRequests?: number;
  retries?: number;
}

/** Fields that name an environment variable holding a secret (or, for emailEnv, the key pair's email). */
const ENV_FIELDS = {
  management: ['tokenEnv', 'emailEnv', 'keyEnv'],
  s3: ['accessKeyIdEnv', 'secretAccessKeyEnv'],
  bindings: ['secretEnv'],
} as const;

/** Keys people write for a secret, and the fields that say where it is kept instead. */
const SECRET_KEYS: { key: RegExp; section: 'management' | 's3' | 'bindings'; env: string; file?: string }[] =
  [
    { key: /^(api)?(token|bearer|bearertoken)$/, section: 'management', env: 'tokenEnv', file: 'tokenFile' },
    { key: /^(api|auth|global|globalapi)?key$/, section: 'management', env: 'keyEnv', file: 'keyFile' },
    { key: /^(auth)?email$/, section: 'management', env: 'emailEnv' },
    { key: /^password$/, section: 'management', env: 'tokenEnv', file: 'tokenFile' },
    { key: /^(s3)?(access)?keyid$/, section: 's3', env: 'accessKeyIdEnv' },
    {
      key: /^(s3)?(secret|secretkey|secretaccesskey)$/,
      section: 's3',
      env: 'secretAccessKeyEnv',
      file: 'secretAccessKeyFile',
    },
    { key: /^(probe)?secret$/, section: 'bindings', env: 'secretEnv', file: 'secretFile' },
  ];

/** Advice for a secret written where the config expects only where it is kept; undefined for other keys. */
function secretKeyAdvice(section: string | undefined, key: string): string | undefined {
  const bare = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  // In s3, a plain "key", "token" or "password" is the secret access key; in bindings, the probe's secret.
  const plain = /^(key|token|password)$/.test(bare);
  const match =
    plain && section === 's3'
      ? SECRET_KEYS.find((s) => s.env === 'secretAccessKeyEnv')
      : plain && section === 'bindings'
        ? SECRET_KEYS.find((s) => s.section === 'bindings')
        : SECRET_KEYS.find((s) => s.key.test(bare) && (section === undefined || s.section === section));
  if (!match) return undefined;
  const field = (name: string) => (section ? name : `${match.section}.${name}`);
  const where = match.file
    ? `an environment variable (${field(match.env)}) or a file (${field(match.file)})`
    : `an environment variable (${field(match.env)})`;
  return `secrets never go in a config file: name ${where}`;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A value written where the name of an environment variable belongs that is more likely the
 * secret itself: not a valid name, or a long random-looking run of letters and digits
 * (variable names are words; tokens and key ids are not).
 */
export function looksLikeSecret(value: string): boolean {
  if (!ENV_NAME.test(value)) return true;
  return value
    .split('_')
    .some((part) => part.length >= 20 && (/\d/.test(part) || (/[a-z]/.test(part) && /[A-Z]/.test(part))));
}

/**
 * An unknown key that may be a pasted secret: characters no key has, or long and unlike a
 * camelCase word (several digits, or no lower-case letter, as in an access key id).
 */
function keyLooksLikeSecret(key: string): boolean {
  if (/[^\w.-]/.test(key)) return true;
  return key.length >= 20 && ((key.match(/\d/g)?.length ?? 0) >= 3 || !/[a-z]/.test(key));
}

export function readConfigFile(file: string): ConfigFile {
  const src = readYaml(file, 'config');
  const doc = src.value;
  // Before the schema, whose messages could otherwise lead with another problem.
  if (doc && typeof doc === 'object' && !Array.isArray(doc)) {
    const sections = doc as Record<string, unknown>;
    for (const [section, fields] of Object.entries(ENV_FIELDS)) {
      const values = sections[section];
      if (!values || typeof values !== 'object') continue;
      for (const field of fields) {
        const v = (values as Record<string, unknown>)[field];
        if (typeof v === 'string' && looksLikeSecret(v)) {
          throw new InputError(
            src.where([section, field]),
            `${section}.${field} looks like a secret, not the name of an environment variable; name the variable that holds it (the value is not shown)`,
          );
        }
      }
    }
  }
  const validate = schemas().validator('config.schema.json');
  if (!validate(doc)) {
    const e = validate.errors![0];
    const extra =
      e.keyword === 'additionalProperties'
        ? (e.params as { additionalProperty: string }).additionalProperty
        : '';
    const at = pointerToPath(e.instancePath);
    const where = extra ? src.whereKey([...at, extra]) : src.where(at);
    const advice = extra ? secretKeyAdvice(at[0] as string | undefined, extra) : undefined;
    if (advice) throw new InputError(where, advice);
    // A key that is itself a pasted secret is not repeated either.
    if (extra && keyLooksLikeSecret(extra)) {
      throw new InputError(
        where,
        'unknown key (not shown: it looks like a secret); see schemas/config.schema.json',
      );
    }
    const feature = featureEnumError(e, at, doc);
    if (feature) throw new InputError(where, feature);
    throw new InputError(where, `${describeErrors([e])}; see schemas/config.schema.json`);
  }
  const config = doc as ConfigFile;
  if (config.targets) {
    const own = (['management', 's3', 'bindings'] as const).find((k) => config[k] !== undefined);
    if (own) {
      throw new InputError(
        src.whereKey([own]),
        `a config with targets describes each target in its own file; move ${own} into one of them`,
      );
    }
  }
  return config;
}

function checkUrl(where: string, url: string | undefined): void {
  if (url === undefined) return;
  let ok = false;
  try {
    ok = /^https?:$/.test(new URL(url).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw new InputError(`${where} ${url}`, 'write an http(s) URL, e.g. https://api.example.com');
}

/** Flags and environment variables that describe a target without a config file. */
export interface TargetFlags {
  name?: string;
  managementUrl?: string;
  s3Endpoint?: string;
  publicUrl?: string;
  accountId?: string;
  zoneId?: string;
  addressing?: 'path' | 'virtual';
  region?: string;
  features?: string[];
  ids?: Record<string, string>;
  /** The bindings probe deployed with the r2_list_honor_include flag. */
  bindingsUrl?: string;
  /** The same probe deployed without the flag. */
  bindingsLegacyUrl?: string;
  /** The bucket bound to the probe, when the target's S3 endpoint reaches it too. */
  bindingsBucket?: string;
  /** For commands that make no binding call (sweep): the config's bindings section is not read. */
  withoutBindings?: boolean;
}

function secretFrom(
  env: NodeJS.ProcessEnv,
  envName: string | undefined,
  file: string | undefined,
  where: string,
  base: string,
) {
  if (file) {
    const full = path.resolve(base, file);
    try {
      return readInputFile(full, 'secret', where).trim();
    } catch (err) {
      if (err instanceof InputError) throw err;
      // The path is not repeated: a secret pasted here by mistake would be printed with it.
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new InputError(
        where,
        `cannot read the file it names (${code}); give the path of a file holding only the secret, relative to the config file`,
      );
    }
  }
  const v = envName ? env[envName] : undefined;
  return v?.trim() || undefined;
}

/**
 * A target from a config file, flags and the environment (flags win over the file).
 * Undefined when none of them names an endpoint or a bindings probe: the run then uses the
 * embedded reference.
 */
export function resolveTarget(
  config: ConfigFile | undefined,
  configPath: string | undefined,
  flags: TargetFlags,
  env: NodeJS.ProcessEnv = process.env,
): Target | undefined {
  const base = configPath ? path.dirname(configPath) : process.cwd();
  const managementUrl = flags.managementUrl ?? config?.management?.baseUrl ?? env.EDGECHECK_MANAGEMENT_URL;
  const s3Endpoint = flags.s3Endpoint ?? config?.s3?.endpoint ?? env.EDGECHECK_S3_ENDPOINT;
  const b = flags.withoutBindings ? undefined : config?.bindings;
  const bindingsUrl = flags.withoutBindings ? undefined : (flags.bindingsUrl ?? b?.url);
  if (!bindingsUrl && (flags.bindingsLegacyUrl || flags.bindingsBucket)) {
    const flag = flags.bindingsLegacyUrl ? '--bindings-legacy-url' : '--bindings-bucket';
    throw new InputError(flag, 'give it with --bindings-url URL (the probe deployed with the flag)');
  }
  if (!managementUrl && !s3Endpoint && !bindingsUrl) return undefined;
  checkUrl(flags.managementUrl ? '--management-url' : 'management.baseUrl', managementUrl);
  checkUrl(flags.s3Endpoint ? '--s3-endpoint' : 's3.endpoint', s3Endpoint);
  checkUrl('--public-url', flags.publicUrl);
  checkUrl(flags.bindingsUrl ? '--bindings-url' : 'bindings.url', bindingsUrl);
  const bindingsLegacyUrl = flags.bindingsLegacyUrl ?? b?.legacyUrl;
  checkUrl(flags.bindingsLegacyUrl ? '--bindings-legacy-url' : 'bindings.legacyUrl', bindingsLegacyUrl);
  const bindingsBucket = flags.bindingsBucket ?? b?.bucket;
  if (bindingsBucket && !s3Endpoint) {
    throw new InputError(
      flags.bindingsBucket ? '--bindings-bucket' : 'bindings.bucket',
      "it names the probe's bucket on the target's S3 endpoint: give the endpoint (--s3-endpoint or s3.endpoint), or drop it",
    );
  }
  for (const f of flags.features ?? []) {
    if (!isFeature(f)) throw new InputError(`--feature ${f}`, unknownFeature(f));
  }
  const m = config?.management;
  const s = config?.s3;
  const target: Target = {
    name: flags.name ?? config?.name ?? 'target',
    features: flags.features ?? config?.features ?? [],
  };
  const secret = (envName: string, file: string | undefined, field: string) =>
    secretFrom(env, envName, file, field, base);
  if (managementUrl) target.management = managementTarget(managementUrl, m, flags, env, secret);
  if (s3Endpoint) target.s3 = s3Target(s3Endpoint, s, flags, secret);
  if (bindingsUrl) {
    const name = b?.secretEnv ?? 'EDGECHECK_BINDINGS_SECRET';
    const probeSecret = secret(name, b?.secretFile, 'bindings.secretFile');
    if (!probeSecret) {
      throw new InputError(
        'bindings',
        `no probe secret: set ${name} to the probe's PROBE_SECRET, or name another variable or a file in the config`,
      );
    }
    target.bindings = {
      url: bindingsUrl,
      legacyUrl: bindingsLegacyUrl,
      secret: probeSecret,
      bucket: bindingsBucket,
    };
    // A probe is how the target offers worker bindings: the feature comes with it.
    if (!target.features.includes('worker-bindings'))
      target.features = [...target.features, 'worker-bindings'];
  }
  return target;
}

/** Reads a secret from the environment or a file (relative to the config file). */
type SecretReader = (envName: string, file: string | undefined, field: string) => string | undefined;

/** The management API of a target, with its credentials: a token, or an email and a key. */
function managementTarget(
  managementUrl: string,
  m: ConfigFile['management'],
  flags: TargetFlags,
  env: NodeJS.ProcessEnv,
  secret: SecretReader,
): ManagementTarget {
  const baseUrl = managementUrl.replace(/\/client\/v4\/?$/, '').replace(/\/+$/, '');
  const names = {
    token: m?.tokenEnv ?? 'EDGECHECK_API_TOKEN',
    email: m?.emailEnv ?? 'EDGECHECK_AUTH_EMAIL',
    key: m?.keyEnv ?? 'EDGECHECK_AUTH_KEY',
  };
  const token = secret(names.token, m?.tokenFile, 'management.tokenFile');
  const email = secret(names.email, undefined, 'management.emailEnv');
  const key = secret(names.key, m?.keyFile, 'management.keyFile');
  if (!token && !(email && key)) {
    throw new InputError(
      'management',
      `no credentials: set ${names.token} (or ${names.email} and ${names.key}), or name other variables or files in the config`,
    );
  }
  return {
    baseUrl,
    token,
    legacy: email && key ? { email, key } : undefined,
    accountId: flags.accountId ?? m?.accountId ?? env.EDGECHECK_ACCOUNT_ID,
    zoneId: flags.zoneId ?? m?.zoneId ?? env.EDGECHECK_ZONE_ID,
    ids: { ...(m?.ids ?? {}), ...(flags.ids ?? {}) },
  };
}

/** The S3 endpoint of a target, with its access key. */
function s3Target(
  s3Endpoint: string,
  s: ConfigFile['s3'],
  flags: TargetFlags,
  secret: SecretReader,
): S3Target {
  const names = {
    id: s?.accessKeyIdEnv ?? 'EDGECHECK_S3_ACCESS_KEY_ID',
    secret: s?.secretAccessKeyEnv ?? 'EDGECHECK_S3_SECRET_ACCESS_KEY',
  };
  const accessKeyId = secret(names.id, undefined, 's3.accessKeyIdEnv');
  const secretAccessKey = secret(names.secret, s?.secretAccessKeyFile, 's3.secretAccessKeyFile');
  if (!accessKeyId || !secretAccessKey) {
    throw new InputError(
      's3',
      `no credentials: set ${names.id} and ${names.secret}, or name other variables or a file in the config`,
    );
  }
  return {
    endpoint: s3Endpoint.replace(/\/+$/, ''),
    publicUrl: flags.publicUrl ?? s?.publicUrl,
    region: flags.region ?? s?.region ?? 'auto',
    addressing: flags.addressing ?? s?.addressing ?? 'path',
    accessKeyId,
    secretAccessKey,
  };
}
