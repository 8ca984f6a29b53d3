/**
 * Secrets never reach any output. Two nets: the secret values the run knows (token, keys,
 * secret access key) are replaced wherever they occur, and every header or query parameter
 * that carries a secret is masked whatever its value.
 */
import { AWS4_AUTHORIZATION, SCOPE } from './sigv4-form.ts';

const MASK = '[REDACTED]';
/** Registered secret values, each with the label its mask names, where one was given. */
const secrets = new Map<string, string | undefined>();

/**
 * A value to replace wherever it occurs. With a label, its mask says what it hid
 * (`[REDACTED secret access key]`): a recording then still shows where that secret stood.
 */
export function registerSecret(value: string | undefined, label?: string): void {
  if (!value || value.length < 4) return;
  if (label || !secrets.has(value)) secrets.set(value, label ?? secrets.get(value));
}

/** The label the secret access key of S3 requests is registered with. */
export const SECRET_ACCESS_KEY = 'secret access key';

const maskOf = (label: string | undefined) => (label ? `[REDACTED ${label}]` : MASK);

/**
 * Whether `text` carries the secret registered with `label`, or the mask a recording put in its
 * place: the same answer whether it is read as it passed or from a recording of it.
 */
export function carriesSecret(text: string, label: string): boolean {
  if (text.includes(maskOf(label))) return true;
  for (const [value, l] of secrets) if (l === label && text.includes(value)) return true;
  return false;
}

const SECRET_HEADERS =
  /^(authorization|x-auth-key|x-amz-security-token|x-edgecheck-probe-secret|cookie|set-cookie|proxy-authorization)$/i;
// Header names may stand quoted, as in a JSON-encoded header map.
const AUTH_VALUE = /(["']?authorization["']?\s*[:=]\s*["']?)([^\n"']*)/gi;
const SCHEME = /^(bearer|aws4-hmac-sha256|basic)\s+/i;
/** A mask already in place, which no pattern below masks again. */
const MASKED = '(?!\\[REDACTED)';

function maskAuthorization(_: string, head: string, value: string): string {
  // A value that is an environment reference ($EDGECHECK_API_TOKEN) is not a secret and stays readable.
  if (/^([\w-]+\s+)?\$[A-Z_]/.test(value) || value === MASK) return head + value;
  const scheme = SCHEME.exec(value)?.[0] ?? '';
  return `${head}${scheme}${labelledMaskIn(value) ?? MASK}`;
}

/** The labelled mask a value already holds, so that masking it again keeps what it names. */
function labelledMaskIn(value: string): string | undefined {
  return /\[REDACTED [a-z0-9 ]+\]/.exec(value)?.[0];
}

const PATTERNS: [RegExp, string][] = [
  [new RegExp(`(["']?x-auth-key["']?\\s*[:=]\\s*["']?)(?!\\$)${MASKED}[^\\s"',]+`, 'gi'), `$1${MASK}`],
  [new RegExp(`(["']?x-amz-security-token["']?\\s*[:=]\\s*["']?)${MASKED}[^\\s"',&]+`, 'gi'), `$1${MASK}`],
  [/([?&]X-Amz-(?:Signature|Credential|Security-Token)=)[^&\s"']+/gi, `$1${MASK}`],
  [/(Signature=)[0-9a-f]{64}/gi, `$1${MASK}`],
  [/(Credential=)[^,&\s"']+/gi, `$1${MASK}`], // & ends a query parameter
  [
    new RegExp(`(["']?x-edgecheck-probe-secret["']?\\s*[:=]\\s*["']?)(?!\\$)${MASKED}[^\\s"',]+`, 'gi'),
    `$1${MASK}`,
  ],
];

/** Every registered secret in `text` replaced by its mask. */
function replaceSecrets(text: string): string {
  let out = text;
  for (const [s, label] of secrets) {
    // Percent-encoded too, as it stands in a URL's path or query.
    for (const form of new Set([s, encodeURIComponent(s)]))
      if (out.includes(form)) out = out.split(form).join(maskOf(label));
  }
  return out;
}

export function redactText(text: string): string {
  let out = replaceSecrets(text);
  out = out.replace(AUTH_VALUE, maskAuthorization);
  for (const [re, repl] of PATTERNS) out = out.replace(re, repl);
  return out;
}

/*
 * A SigV4 credential's scope after its key id (date/region/service/aws4_request) and the names of
 * the signed headers are no secret, and say which region a request was signed for: they are kept
 * where they stand in their own places (an Authorization header, an X-Amz-Credential parameter),
 * the key id and the signature masked. Anything that is not exactly that form is masked whole.
 */
/** An Authorization header's value, masked: a SigV4 one keeps its scope and signed header names. */
function maskAuthorizationHeader(value: string): string {
  const m = AWS4_AUTHORIZATION.exec(value);
  if (!m || !SCOPE.test(m[1])) return MASK;
  return `AWS4-HMAC-SHA256 Credential=${MASK}/${m[1]}, SignedHeaders=${m[2]}, Signature=${MASK}`;
}

/** An X-Amz-Credential value (percent-encoded or not) with its key id masked and its scope kept. */
function maskCredential(value: string): string {
  const at = value.search(/%2F|\//i);
  if (at < 0) return MASK;
  const scope = value.slice(at);
  return SCOPE.test(scope.replace(/%2F/gi, '/').slice(1)) ? MASK + scope : MASK;
}

/**
 * A URL as a recording keeps it: redacted as any text, except that a presigned URL's
 * X-Amz-Credential keeps its scope.
 */
export function redactUrl(url: string): string {
  const text = replaceSecrets(url);
  const scoped = [...text.matchAll(/[?&]X-Amz-Credential=([^&\s"']+)/gi)].map((m) => maskCredential(m[1]));
  let i = 0;
  // Each X-Amz-Credential redactText masked, in order, given back its scope.
  return redactText(text).replace(
    /([?&]X-Amz-Credential=)\[REDACTED\]/gi,
    (_, head: string) => head + (scoped[i++] ?? MASK),
  );
}

/** A secret-carrying header's value, masked: whole, or saying which registered secret it held. */
function maskHeader(name: string, value: string): string {
  if (value === '') return value;
  const masked = replaceSecrets(value);
  const labelled = labelledMaskIn(masked);
  if (labelled) return labelled;
  return /^authorization$/i.test(name) ? maskAuthorizationHeader(value) : MASK;
}

/** Redacts strings anywhere in a value; header maps by name. Returns a copy. */
export function redactDeep<T>(value: T, key = ''): T {
  if (typeof value === 'string') {
    return (SECRET_HEADERS.test(key) ? maskHeader(key, value) : redactText(value)) as T;
  }
  if (Array.isArray(value)) return value.map((v) => redactDeep(v)) as T;
  if (value && typeof value === 'object' && !(value instanceof Buffer)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, k);
    return out as T;
  }
  return value;
}
