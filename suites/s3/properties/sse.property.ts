import { fc, generateBuffer, type Observer, type PropertyDef } from 'edgecheck/kit';
import { rawBucket } from './support/bucket.ts';
import { seenObject, seenWrite, Versions } from './support/observed-objects.ts';
import { expectThat } from './support/wire.ts';

/*
 * The encryption an object was written with is the object's: GET and HEAD of what a PutObject with
 * x-amz-server-side-encryption AES256 wrote answer that header, as its PutObject did.
 */

const SSE = 'x-amz-server-side-encryption';
const plainKeyArb = fc.stringMatching(/^[a-z0-9][a-z0-9/._-]{0,30}$/).filter((k) => !k.includes('//'));
const show = (v: unknown) => JSON.stringify(v);

/**
 * Seen in traffic: a GET or HEAD answered 200 or 206 of a version (ETag) that a PutObject asking for
 * AES256 wrote, and whose answer said AES256, answers AES256 too. An ETag names one write, so
 * another writer's object is another version, and is not judged.
 */
function observeKept(): Observer {
  const encrypted = new Versions<string>();
  return (ex) => {
    const written = seenWrite(ex);
    if (written) {
      if (written.sseAsked === 'AES256' && written.sseAnswered === 'AES256')
        encrypted.remember(seenObject(ex)!, written.etag, written.sseAnswered);
      return undefined;
    }
    const o = seenObject(ex);
    if (!o || (ex.method !== 'GET' && ex.method !== 'HEAD')) return undefined;
    if (ex.status !== 200 && ex.status !== 206) return undefined;
    const sse = encrypted.recall(o, ex.headers.etag);
    if (sse === undefined) return undefined;
    expectThat(
      ex.headers[SSE] === sse,
      `${ex.method} ${ex.path} (ETag ${ex.headers.etag}) answered ${SSE} ${show(ex.headers[SSE] ?? null)}, where the PutObject that wrote it asked for and answered ${sse}`,
    );
    return true;
  };
}

const properties: PropertyDef[] = [
  {
    id: 's3.prop.sse-kept',
    title: 'For any key and body, what PutObject with AES256 writes is answered AES256 on GET and HEAD',
    clauses: ['s3.sse.aes256'],
    // Quick: one PUT, a GET and a HEAD a run.
    requests: 3 * 5,
    observe: {
      selects:
        'GET and HEAD answered 200 or 206 of an object version (ETag) a PutObject asking for AES256 wrote',
      observer: observeKept,
    },
    async run(ctx) {
      const bucket = await rawBucket(ctx, 'sse');
      await fc.assert(
        // Plain keys: how a key is encoded on the way is other clauses' to judge, not the encryption's.
        fc.asyncProperty(plainKeyArb, fc.nat(4096), fc.nat(1_000_000), async (key, size, seed) => {
          const put = await ctx.http({
            method: 'PUT',
            bucket,
            key,
            headers: { [SSE]: 'AES256' },
            body: generateBuffer(seed, 0, size),
          });
          // The PutObject's own answer is the case's to judge (s3.sse.aes256-echoed); here, the object's.
          if (put.status !== 200) ctx.blocked(`PutObject ${show(key)} with AES256 answered ${put.status}`);
          for (const method of ['GET', 'HEAD'] as const) {
            const res = await ctx.http({ method, bucket, key });
            expectThat(
              res.status === 200 && res.headers[SSE] === 'AES256',
              `${method} ${show(key)} written with AES256: status ${res.status}, ${SSE} ${show(res.headers[SSE] ?? null)}`,
            );
          }
        }),
        { seed: ctx.fc.seed, numRuns: Math.min(ctx.fc.numRuns, 5) },
      );
    },
  },
];

export default properties;
