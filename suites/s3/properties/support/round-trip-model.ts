import { generateBuffer, type PropertyContext, type WireResponse } from 'edgecheck/kit';
import { rawBucket } from './bucket.ts';
import { completeXml } from './multipart.ts';
import { type Attrs, type KeyChoice, type Op, requestHeaders } from './round-trip-scripts.ts';
import { expectThat } from './wire.ts';
import { xmlResult } from './xml.ts';

/*
 * The round-trip properties' model of what was written, and the plain requests that write and read
 * it back (round-trip.property.ts judges the reads against the model).
 */

export interface Stored extends Attrs {
  bytes: Buffer;
  /** How it was written, for messages. */
  how: string;
  /** The ETag a copy of it must carry: what its PutObject answered, or its source's. */
  etag?: string;
  /** Set for copies: the ETag the copy answered in CopyObjectResult, and its source's key. */
  copy?: { answered?: string; source: string };
}

/** What was written, in order of writing. */
export class Model {
  readonly objects = new Map<string, Stored>();
}

/** The key a choice names among the keys written so far, in order of first writing. */
function resolve(keys: string[], choice: KeyChoice): string {
  return 'fresh' in choice ? choice.fresh : keys[choice.earlier % keys.length];
}

/**
 * The writes a script makes, each with its key, as play sends them: a copy onto its own source is
 * left out (s3.copy.onto-itself has rules of its own). Known before anything is sent.
 */
export function planOf(ops: Op[]): { op: Op; key: string }[] {
  const keys: string[] = [];
  const plan: { op: Op; key: string }[] = [];
  for (const op of ops) {
    const key = resolve(keys, op.key);
    if (op.kind === 'copy' && keys[op.from % keys.length] === key) continue;
    if (!keys.includes(key)) keys.push(key);
    plan.push({ op, key });
  }
  return plan;
}

/** How a copy the script leaves was made, known before anything is sent (as play makes it). */
interface LeftCopy {
  /** Its source's metadata and content headers when copied. */
  source: Attrs;
  /** What REPLACE gave, absent for a copy without it. */
  replace?: Attrs;
}

/** The copies a script leaves: the objects whose last write is a CopyObject. */
function leftCopies(ops: Op[]): LeftCopy[] {
  const keys: string[] = [];
  const state = new Map<string, { attrs: Attrs; copy?: LeftCopy }>();
  for (const { op, key } of planOf(ops)) {
    if (op.kind === 'copy') {
      // As copy() picks it: among the keys written before this one.
      const source = state.get(keys[op.from % keys.length])!.attrs;
      state.set(key, { attrs: op.replace ?? source, copy: { source, replace: op.replace } });
    } else {
      state.set(key, { attrs: op.attrs });
    }
    if (!keys.includes(key)) keys.push(key);
  }
  return [...state.values()].flatMap((s) => (s.copy ? [s.copy] : []));
}

/** Whether some object the script leaves was last written by a CopyObject. */
export function leavesCopy(ops: Op[]): boolean {
  return leftCopies(ops).length > 0;
}

const names = (a: Attrs) => [
  ...Object.keys(a.meta).map((m) => `x-amz-meta-${m}`),
  ...Object.keys(a.headers).map((h) => h.toLowerCase()),
];

/**
 * Whether the script leaves a copy of each kind the metadata directive speaks of, each with
 * something to tell: one without REPLACE whose source has metadata or content headers (a copy
 * given none then shows), and one with REPLACE whose source has one that REPLACE does not give (a
 * copy that keeps it then shows).
 */
export function leavesTellingCopies(ops: Op[]): boolean {
  const copies = leftCopies(ops);
  const kept = copies.some((c) => !c.replace && names(c.source).length > 0);
  const replaced = copies.some((c) => {
    const given = new Set(c.replace ? names(c.replace) : []);
    return c.replace && names(c.source).some((n) => !given.has(n));
  });
  return kept && replaced;
}

/**
 * One bucket per property; each run writes under a namespace of its own (`r<n>/`), counted in that
 * bucket: the keys a seed gives never depend on what ran before in the process (a --target run,
 * tests that run the suites many times).
 */
export function worlds(ctx: PropertyContext, label: string) {
  let bucket: Promise<string> | undefined;
  let count = 0;
  return async () => {
    bucket ??= rawBucket(ctx, label);
    const ns = `r${count++}/`;
    return { bucket: await bucket, ns };
  };
}

export interface World {
  bucket: string;
  ns: string;
}

/** x-amz-copy-source: /bucket/key, each segment percent-encoded. */
export function copySource(bucket: string, key: string): string {
  return `/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

export const show = (v: unknown) => JSON.stringify(v);

export async function put(
  ctx: PropertyContext,
  w: World,
  key: string,
  op: Extract<Op, { kind: 'put' }>,
  model: Model,
) {
  const bytes = generateBuffer(op.seed, 0, op.size);
  const res = await ctx.http({
    method: 'PUT',
    bucket: w.bucket,
    key: w.ns + key,
    headers: requestHeaders(op.attrs),
    body: bytes,
  });
  // A refused write is a setup this property cannot go on without: blocked, as a case's would be.
  if (res.status !== 200)
    ctx.blocked(
      `PutObject of ${show(key)} with ${show(requestHeaders(op.attrs))} answered ${res.status}: ${res.text().slice(0, 160)}`,
    );
  model.objects.set(key, { ...op.attrs, bytes, how: 'PutObject', etag: res.headers.etag });
}

export async function multipart(
  ctx: PropertyContext,
  w: World,
  key: string,
  op: Extract<Op, { kind: 'mpu' }>,
  model: Model,
) {
  const bytes = generateBuffer(op.seed, 0, op.size);
  const k = w.ns + key;
  const created = await ctx.http({
    method: 'POST',
    bucket: w.bucket,
    key: k,
    query: { uploads: '' },
    headers: requestHeaders(op.attrs),
  });
  const uploadId = xmlResult(created.text(), 'InitiateMultipartUploadResult')?.UploadId;
  if (created.status !== 200) {
    ctx.blocked(
      `CreateMultipartUpload of ${show(key)} with ${show(requestHeaders(op.attrs))} answered ${created.status}`,
    );
  }
  if (!uploadId)
    ctx.unjudgeable(
      `CreateMultipartUpload of ${show(key)} with ${show(requestHeaders(op.attrs))} answered ${created.status}`,
    );
  const query = { uploadId: String(uploadId) };
  const part = await ctx.http({
    method: 'PUT',
    bucket: w.bucket,
    key: k,
    query: { ...query, partNumber: '1' },
    body: bytes,
  });
  // A last part may be small (behaviour 11); refusing it is s3.mpu.size-checked-at-complete's to judge.
  if (part.status !== 200 || !part.headers.etag)
    ctx.blocked(`UploadPart of a single ${op.size}-byte part answered ${part.status}; nothing to complete`);
  const done = await ctx.http({
    method: 'POST',
    bucket: w.bucket,
    key: k,
    query,
    body: completeXml([{ number: 1, etag: part.headers.etag }]),
  });
  if (done.status !== 200)
    ctx.blocked(
      `CompleteMultipartUpload of ${show(key)} answered ${done.status}: ${done.text().slice(0, 160)}`,
    );
  if (!xmlResult(done.text(), 'CompleteMultipartUploadResult'))
    ctx.unjudgeable(
      `CompleteMultipartUpload of ${show(key)} answered ${done.status}: ${done.text().slice(0, 160)}`,
    );
  model.objects.set(key, { ...op.attrs, bytes, how: 'a one-part multipart upload' });
}

export async function copy(
  ctx: PropertyContext,
  w: World,
  key: string,
  op: Extract<Op, { kind: 'copy' }>,
  model: Model,
) {
  const keys = [...model.objects.keys()];
  const from = keys[op.from % keys.length];
  const src = model.objects.get(from)!;
  const headers: Record<string, string> = { 'x-amz-copy-source': copySource(w.bucket, w.ns + from) };
  if (op.replace)
    Object.assign(headers, requestHeaders(op.replace), { 'x-amz-metadata-directive': 'REPLACE' });
  else if (op.explicitCopy) headers['x-amz-metadata-directive'] = 'COPY';
  const res = await ctx.http({ method: 'PUT', bucket: w.bucket, key: w.ns + key, headers });
  if (res.status !== 200)
    ctx.blocked(
      `CopyObject ${show(from)} -> ${show(key)} answered ${res.status}: ${res.text().slice(0, 160)}`,
    );
  const result = xmlResult(res.text(), 'CopyObjectResult');
  if (!result)
    ctx.unjudgeable(
      `CopyObject ${show(from)} -> ${show(key)} answered ${res.status}: ${res.text().slice(0, 160)}`,
    );
  const attrs: Attrs = op.replace ?? { meta: src.meta, headers: src.headers };
  const directive = op.replace ? 'REPLACE' : op.explicitCopy ? 'COPY' : 'no directive';
  model.objects.set(key, {
    ...attrs,
    bytes: src.bytes,
    how: `CopyObject from ${show(from)} (${directive})`,
    etag: src.etag,
    copy: { answered: result.ETag === undefined ? undefined : String(result.ETag), source: from },
  });
}

/** Runs a script's writes (planOf). */
export async function play(ctx: PropertyContext, w: World, ops: Op[]): Promise<Model> {
  const model = new Model();
  for (const { op, key } of planOf(ops)) {
    if (op.kind === 'put') await put(ctx, w, key, op, model);
    else if (op.kind === 'mpu') await multipart(ctx, w, key, op, model);
    else await copy(ctx, w, key, op, model);
  }
  return model;
}

// ---- Judging -------------------------------------------------------------------------------------

export interface Reads {
  get: WireResponse;
  head: WireResponse;
}

export async function read(ctx: PropertyContext, w: World, key: string): Promise<Reads> {
  const [get, head] = await Promise.all([
    ctx.http({ method: 'GET', bucket: w.bucket, key: w.ns + key }),
    ctx.http({ method: 'HEAD', bucket: w.bucket, key: w.ns + key }),
  ]);
  for (const [what, res] of [
    ['GET', get],
    ['HEAD', head],
  ] as const)
    expectThat(res.status === 200, `${what} ${show(key)} answered ${res.status}, not 200`);
  return { get, head };
}
