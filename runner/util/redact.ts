/**
 * Secrets never reach any output. Two nets: the secret values the run knows (token, keys,
 * secret access key) are replaced wherever they occur, and every header or query parameter
 * that carries a secret is masked whatever its value.
 */
const MASK = '[REDACTED]';
const secrets = new Set<string>();

export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) secrets.add(value);
}

const SECRET_HEADERS =
  /^(authorization|x-auth-key|x-amz-security-token|x-edgecheck-probe-secret|cookie|set-cookie|proxy-authorization)$/i;
// Header names may stand quoted, as in a JSON-encoded header map.
const AUTH_VALUE = /(["']?authorization["']?\s*[:=]\s*["']?)([^\n"']*)/gi;
const SCHEME = /^(bearer|aws4-hmac-sha256|basic)\s+/i;

function maskAuthorization(_: string, head: string, value: string): string {
  // A value that is an environment reference ($EDGECHECK_API_TOKEN) is not a secret and stays readable.
  if (/^([\w-]+\s+)?\$[A-Z_]/.test(value) || value === MASK) return head + value;
  const scheme = SCHEME.exec(value)?.[0] ?? '';
  return `${head}${scheme}${MASK}`;
}

const PATTERNS: [RegExp, string][] = [
  [/(["']?x-auth-key["']?\s*[:=]\s*["']?)(?!\$)[^\s"',]+/gi, `$1${MASK}`],
  [/(["']?x-amz-security-token["']?\s*[:=]\s*["']?)[^\s"',&]+/gi, `$1${MASK}`],
  [/([?&]X-Amz-(?:Signature|Credential|Security-Token)=)[^&\s"']+/gi, `$1${MASK}`],
  [/(Signature=)[0-9a-f]{64}/gi, `$1${MASK}`],
  [/(Credential=)[^,&\s"']+/gi, `$1${MASK}`], // & ends a query parameter
  [/(["']?x-edgecheck-probe-secret["']?\s*[:=]\s*["']?)(?!\$)[^\s"',]+/gi, `$1${MASK}`],
];

export function redactText(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(MASK);
  out = out.replace(AUTH_VALUE, maskAuthorization);
  for (const [re, repl] of PATTERNS) out = out.replace(re, repl);
  return out;
}

/** Redacts strings anywhere in a value; header maps by name. Returns a copy. */
export function redactDeep<T>(value: T, key = ''): T {
  if (typeof value === 'string') {
    return (SECRET_HEADERS.test(key) ? MASK : redactText(value)) as T;
  }
  if (Array.isArray(value)) return value.map((v) => redactDeep(v)) as T;
  if (value && typeof value === 'object' && !(value instanceof Buffer)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactDeep(v, k);
    return out as T;
  }
  return value;
}
