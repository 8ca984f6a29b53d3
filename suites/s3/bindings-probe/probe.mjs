/**
 * The bindings probe: a worker holding an R2 binding (BUCKET) that turns one JSON request into
 * one binding call and answers what the binding returned or threw, unchanged in meaning, so that
 * the runtime's own behaviour is what edgecheck judges. Requests must carry the shared secret of
 * the worker's PROBE_SECRET variable in the x-edgecheck-probe-secret header.
 *
 * Request (POST, JSON): { call, key?, keys?, value?, options?, uploadId?, partNumber?, parts? }.
 * In options, { "$headers": {...} } becomes a Headers object and { "$date": "..." } a Date (the
 * forms onlyIf and range accept that JSON cannot carry); everything else is passed as given,
 * malformed values included.
 * Answer (200, JSON): { result } with what the call returned (absent for undefined, null kept),
 * or { error: { name, message } } with what it threw. Probe-level refusals are 401 or 400 with
 * { probeError }.
 */

const CALLS = new Set([
  'put',
  'get',
  'head',
  'list',
  'delete',
  'createMultipartUpload',
  'uploadPart',
  'completeMultipartUpload',
  'abortMultipartUpload',
]);

export default {
  async fetch(request, env) {
    if (!(await secretMatches(request.headers.get('x-edgecheck-probe-secret'), env.PROBE_SECRET)))
      return Response.json({ probeError: 'missing or wrong x-edgecheck-probe-secret' }, { status: 401 });
    if (request.method !== 'POST') return Response.json({ probeError: 'POST a JSON call' }, { status: 400 });
    let req;
    try {
      req = await request.json();
    } catch {
      return Response.json({ probeError: 'the body is not JSON' }, { status: 400 });
    }
    if (!req || !CALLS.has(req.call)) return Response.json({ probeError: 'unknown call' }, { status: 400 });
    try {
      const returned = await perform(env.BUCKET, req);
      return Response.json(returned === undefined ? {} : { result: await serialise(returned) });
    } catch (err) {
      return Response.json({
        error: { name: err?.name ?? typeof err, message: String(err?.message ?? err) },
      });
    }
  },
};

async function perform(bucket, req) {
  const options = revive(req.options);
  switch (req.call) {
    case 'put':
      return bucket.put(req.key, req.value ?? null, options);
    case 'get':
      return bucket.get(req.key, options);
    case 'head':
      return bucket.head(req.key);
    case 'list':
      return bucket.list(options);
    case 'delete':
      return bucket.delete(req.keys ?? req.key);
    case 'createMultipartUpload':
      return bucket.createMultipartUpload(req.key, options);
    case 'uploadPart':
      return bucket.resumeMultipartUpload(req.key, req.uploadId).uploadPart(req.partNumber, req.value ?? '');
    case 'completeMultipartUpload':
      return bucket.resumeMultipartUpload(req.key, req.uploadId).complete(req.parts ?? []);
    case 'abortMultipartUpload':
      return bucket.resumeMultipartUpload(req.key, req.uploadId).abort();
  }
}

/** JSON stand-ins for the values JSON has no form for. */
function revive(value) {
  if (Array.isArray(value)) return value.map(revive);
  if (!value || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === '$headers') return new Headers(value.$headers);
  if (keys.length === 1 && keys[0] === '$date') return new Date(value.$date);
  return Object.fromEntries(keys.map((k) => [k, revive(value[k])]));
}

/** An R2 result as JSON: objects by their fields, checksums as hex, a body as text and length. */
async function serialise(value) {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return Promise.all(value.map(serialise));
  if ('uploadId' in value && 'key' in value && typeof value.uploadPart === 'function')
    return { key: value.key, uploadId: value.uploadId };
  if ('objects' in value) {
    return {
      objects: await Promise.all(value.objects.map(serialise)),
      truncated: value.truncated,
      cursor: value.cursor,
      delimitedPrefixes: value.delimitedPrefixes,
    };
  }
  if ('partNumber' in value && 'etag' in value) return { partNumber: value.partNumber, etag: value.etag };
  if ('etag' in value && 'key' in value) {
    const out = {
      key: value.key,
      version: value.version,
      size: value.size,
      etag: value.etag,
      httpEtag: value.httpEtag,
      uploaded: value.uploaded?.toISOString(),
      httpMetadata: value.httpMetadata,
      customMetadata: value.customMetadata,
      range: value.range,
      checksums: value.checksums?.toJSON(),
      storageClass: value.storageClass,
    };
    if ('body' in value) {
      const text = await value.text();
      out.body = { text, length: new TextEncoder().encode(text).length };
    }
    return out;
  }
  return JSON.parse(JSON.stringify(value));
}

/** Compares digests of the two values, so the time taken says nothing about the secret. */
async function secretMatches(given, expected) {
  if (!given || !expected) return false;
  const digest = async (s) =>
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s)));
  const [a, b] = await Promise.all([digest(given), digest(expected)]);
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
