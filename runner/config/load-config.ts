import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pointerToPath, readYaml } from '../load/yaml-source.ts';
import type { Target } from '../model/target.ts';
import { describeErrors, schemas } from '../schema/registry.ts';
import { InputError } from '../util/errors.ts';

/** The config file's shape (schemas/config.schema.json). */
export interface ConfigFile {
  name?: string;
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
  features?: string[];
  asOf?: string;
  readOnly?: boolean;
  profile?: 'quick' | 'full';
  concurrency?: number;
  timeoutMs?: number;
}

const SECRET_KEYS = /^(token|key|apiKey|apiToken|secret|secretAccessKey|password)$/i;

export function readConfigFile(file: string): ConfigFile {
  const src = readYaml(file, 'config');
  const doc = src.value;
  const validate = schemas().validator('config.schema.json');
  if (!validate(doc)) {
    const e = validate.errors![0];
    const extra =
      e.keyword === 'additionalProperties'
        ? (e.params as { additionalProperty: string }).additionalProperty
        : '';
    const at = pointerToPath(e.instancePath);
    const where = extra ? src.whereKey([...at, extra]) : src.where(at);
    if (SECRET_KEYS.test(extra)) {
      throw new InputError(
        where,
        `secrets never go in a config file: name an environment variable (${extra}Env) or a file (${extra}File)`,
      );
    }
    throw new InputError(where, `${describeErrors([e])}; see schemas/config.schema.json`);
  }
  return doc as ConfigFile;
}

const FEATURES: string[] = (schemas().validator('config.schema.json').schema as any).properties.features.items
  .enum;

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
}

function secretFrom(
  env: NodeJS.ProcessEnv,
  envName: string | undefined,
  file: string | undefined,
  where: string,
  base: string,
) {
  if (file) {
    try {
      return readFileSync(path.resolve(base, file), 'utf8').trim();
    } catch (err) {
      throw new InputError(where, `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  const v = envName ? env[envName] : undefined;
  return v?.trim() || undefined;
}

/**
 * A target from a config file, flags and the environment (flags win over the file).
 * Undefined when none of them names an endpoint: the run then uses the embedded reference.
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
  if (!managementUrl && !s3Endpoint) return undefined;
  checkUrl(flags.managementUrl ? '--management-url' : 'management.baseUrl', managementUrl);
  checkUrl(flags.s3Endpoint ? '--s3-endpoint' : 's3.endpoint', s3Endpoint);
  checkUrl('--public-url', flags.publicUrl);
  for (const f of flags.features ?? []) {
    if (!FEATURES.includes(f))
      throw new InputError(`--feature ${f}`, `unknown feature; known: ${FEATURES.join(', ')}`);
  }
  const m = config?.management;
  const s = config?.s3;
  const target: Target = {
    name: flags.name ?? config?.name ?? 'target',
    features: flags.features ?? config?.features ?? [],
  };
  const secret = (envName: string, file: string | undefined, field: string) =>
    secretFrom(env, envName, file, field, base);
  if (managementUrl) {
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
    target.management = {
      baseUrl,
      token,
      legacy: email && key ? { email, key } : undefined,
      accountId: flags.accountId ?? m?.accountId ?? env.EDGECHECK_ACCOUNT_ID,
      zoneId: flags.zoneId ?? m?.zoneId ?? env.EDGECHECK_ZONE_ID,
      ids: { ...(m?.ids ?? {}), ...(flags.ids ?? {}) },
    };
  }
  if (s3Endpoint) {
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
    target.s3 = {
      endpoint: s3Endpoint.replace(/\/+$/, ''),
      publicUrl: flags.publicUrl ?? s?.publicUrl,
      region: flags.region ?? s?.region ?? 'auto',
      addressing: flags.addressing ?? s?.addressing ?? 'path',
      accessKeyId,
      secretAccessKey,
    };
  }
  return target;
}
