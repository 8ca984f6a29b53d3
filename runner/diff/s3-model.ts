import { removeBucketCommand } from '../transports/buckets.ts';
import { TargetError } from '../util/errors.ts';
import { type HeaderComparison, normalize } from './normalize.ts';
import type { DiffModel } from './run-diff.ts';
import { signatureOf } from './run-diff.ts';
import { CLAUSE_HEADERS, clausesFor } from './s3-clauses.ts';
import { describeCommand, type Etags, KEYS, requestsFor, type S3Command, s3Command } from './s3-commands.ts';

interface S3State {
  prefix: string;
  etags: Etags;
  uploads: string[];
}

const etagIn = (xml: string) => /<ETag>([^<]+)<\/ETag>/.exec(xml)?.[1]?.replace(/&quot;/g, '"');

/**
 * Objects and uploads in one bucket the run creates on each side, a key prefix per sequence.
 * Headers no clause names are compared by presence only, unless `headers` is `all`.
 */
export function s3Model(runId: string, headers: 'named' | 'all' = 'named'): DiffModel<S3Command, S3State> {
  const bucket = `ec-${runId}-diff`;
  const compare: HeaderComparison = { mode: headers, named: CLAUSE_HEADERS };
  return {
    command: s3Command,
    describe: describeCommand,
    clauses: clausesFor,
    signature: signatureOf,
    async setup(side, send) {
      if (!side.s3) throw new TargetError(`${side.name} has no S3 endpoint`);
      const made = await send(side, { s3: { method: 'PUT', bucket } });
      if (made.status !== 200) {
        throw new TargetError(`${side.name}: could not create bucket ${bucket} (status ${made.status})`);
      }
    },
    async teardown(side, send) {
      const gone = await send(side, { s3: { method: 'DELETE', bucket } });
      if ((gone.status >= 200 && gone.status < 300) || gone.status === 404) return undefined;
      return `${side.name}: bucket ${bucket} (DELETE answered ${gone.status}); remove it with: ${removeBucketCommand(side.s3!, bucket)}`;
    },
    state: (_side, n) => ({ prefix: `s${n}/`, etags: new Map(), uploads: [] }),
    async perform(side, cmd, state, ask) {
      const method = cmd.op === 'head' ? 'HEAD' : 'GET';
      const [first] = requestsFor(cmd, bucket, state.prefix, state.etags);
      const res = await ask(side, { s3: first });
      const out = [res];
      if (cmd.op === 'put' && res.status === 200 && res.headers.etag)
        state.etags.set(cmd.key, res.headers.etag);
      if (cmd.op === 'delete' && res.status < 300) state.etags.delete(cmd.key);
      if (cmd.op === 'copy' && res.status === 200) {
        const etag = etagIn(res.text());
        if (etag) state.etags.set(cmd.to, etag);
      }
      if (cmd.op === 'multipart' && res.status === 200) {
        const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(res.text())?.[1];
        if (uploadId) {
          state.uploads.push(uploadId);
          const key = `${state.prefix}${cmd.key}`;
          const part = await ask(side, {
            s3: { method: 'PUT', bucket, key, query: { partNumber: '1', uploadId }, body: cmd.body },
          });
          out.push(part);
          if (part.status === 200) {
            const complete = await ask(side, {
              s3: {
                method: 'POST',
                bucket,
                key,
                query: { uploadId },
                body: `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${part.headers.etag ?? ''}</ETag></Part></CompleteMultipartUpload>`,
              },
            });
            out.push(complete);
            const etag = etagIn(complete.text());
            if (complete.status === 200 && etag) state.etags.set(cmd.key, etag);
          }
        }
      }
      return out.map((r) => normalize(r, method, compare));
    },
    async clear(side, state, ask) {
      const left: string[] = [];
      const gone = (what: string, status: number) => {
        if ((status < 200 || status >= 300) && status !== 404)
          left.push(`${side.name}: ${what} (DELETE answered ${status})`);
      };
      await Promise.all(
        KEYS.map(async (k) => {
          const key = `${state.prefix}${k}`;
          gone(
            `object ${bucket}/${key}`,
            (await ask(side, { s3: { method: 'DELETE', bucket, key } })).status,
          );
        }),
      );
      for (const uploadId of state.uploads) {
        for (const k of KEYS) {
          await ask(side, {
            s3: { method: 'DELETE', bucket, key: `${state.prefix}${k}`, query: { uploadId } },
          });
        }
      }
      return left;
    },
  };
}
