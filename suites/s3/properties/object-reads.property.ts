import type { ObservedView, PropertyDef } from 'edgecheck/kit';
import { rawBucket } from './support/bucket.ts';
import { described } from './support/exchange.ts';
import { replayedProperty } from './support/replay.ts';
import { expectThat } from './support/wire.ts';
import { responseOverrides } from './support/wire-observers.ts';

// GetObject's answers to what its request asks beside the object: the response-* parameters and a
// Range that is no byte range. The run sends such reads and its observer judges them as it judges traffic.

/** A Range header of one range that is none: its last byte before its first, or a bound that is no number. */
function invalidRange(header: string): boolean {
  const m = /^bytes=([^,-]*)-([^,-]*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return false;
  const number = (s: string) => /^\d*$/.test(s);
  if (!number(m[1]) || !number(m[2])) return true;
  return m[1] !== '' && m[2] !== '' && Number(m[2]) < Number(m[1]);
}

/** A GET whose Range is no valid byte range, with no condition beside it: the whole object, 200; never 206, 416 or a 5xx. */
function rangeIgnored(ex: ObservedView): boolean | undefined {
  const header = ex.requestHeaders.range;
  if (ex.door !== 's3' || ex.method !== 'GET' || header === undefined || !invalidRange(header))
    return undefined;
  if (Object.keys(ex.requestHeaders).some((h) => h.startsWith('if-'))) return undefined;
  if (ex.status === 200) return true;
  expectThat(
    ex.status !== 206 && ex.status !== 416 && ex.status < 500,
    `${described(ex)}: Range ${header} is no byte range and is ignored (200 with the object)`,
  );
  return undefined;
}

const properties: PropertyDef[] = [
  replayedProperty({
    id: 's3.prop.response-overrides-seen',
    title: 'GetObject answers each response-* parameter it is given as that header, with the value given',
    clause: 's3.get.response-overrides',
    selects: 'GetObject with response-* parameters answered 200 or 206',
    observer: () => responseOverrides,
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'ovr');
      const put = await send({
        method: 'PUT',
        bucket,
        key: 'o.txt',
        body: 'overridden',
        headers: { 'content-type': 'text/plain' },
      });
      if (put.answer.status !== 200) ctx.blocked(`PutObject answered ${put.answer.status}`);
      const query = {
        'response-content-type': 'application/x-edgecheck',
        'response-content-language': 'fr',
        'response-expires': 'Wed, 21 Oct 2099 07:28:00 GMT',
        'response-cache-control': 'no-store',
        'response-content-disposition': 'attachment; filename="x.txt"',
        'response-content-encoding': 'identity',
      };
      await send({ method: 'GET', bucket, key: 'o.txt', query });
    },
  }),
  replayedProperty({
    id: 's3.prop.range-invalid-ignored',
    title: 'A Range that is no byte range (reversed, not a number) is ignored: 200 with the whole object',
    clause: 's3.get.range-invalid-ignored',
    selects: 'GETs with a Range of one range that is none (reversed, not a number), no condition beside it',
    observer: () => rangeIgnored,
    judges: 2,
    async scenario(ctx, send) {
      const bucket = await rawBucket(ctx, 'rng');
      const put = await send({ method: 'PUT', bucket, key: 'r.txt', body: '0123456789' });
      if (put.answer.status !== 200) ctx.blocked(`PutObject answered ${put.answer.status}`);
      for (const range of ['bytes=5-2', 'bytes=x-3']) {
        const got = await send({ method: 'GET', bucket, key: 'r.txt', headers: { range } });
        expectThat(got.answer.text() === '0123456789', `Range ${range}: the whole object is served`);
      }
    },
  }),
];

export default properties;
