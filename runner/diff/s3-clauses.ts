import type { Difference } from './normalize.ts';
import type { S3Command } from './s3-commands.ts';

/**
 * The response headers whose value an S3 clause states: compared by value in differential mode.
 * Any other header is compared by presence only (a vendor's own, or one SPEC leaves open).
 */
export const CLAUSE_HEADERS: ReadonlySet<string> = new Set([
  'content-range',
  'content-type',
  'content-encoding',
  'x-amz-bucket-region',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'x-amz-checksum-sha256',
  'x-amz-checksum-sha1',
]);

/**
 * The clauses that decide how a command must be answered, where one does: a difference in the
 * answer to that command is a departure from one of them by one of the two targets. Where none
 * does, the difference is labelled "no clause": a candidate for a new clause.
 */
export function clausesFor(cmd: S3Command, difference: Difference): string[] {
  const aspect = difference.aspect;
  // Response headers other than Content-Range, and XML namespaces or error details, are not what
  // the command's clauses decide.
  // A read's Content-Type is the stored object's: inferred from the body when the PUT gave none.
  if (aspect === 'header:content-type' && (cmd.op === 'get' || cmd.op === 'head')) {
    return ['s3.put.content-type-inferred'];
  }
  if (aspect.startsWith('header:') && aspect !== 'header:content-range') return [];
  if (aspect === 'body') {
    const paths = `${difference.a}; ${difference.b}`.split(/; (?=\/|\()/).map((l) => l.replace(/=.*$/, ''));
    if (paths.every((p) => p === '/Error/@xmlns')) return ['s3.xml.error-no-xmlns'];
    if (paths.every((p) => p.endsWith('@xmlns') || p.startsWith('/Error/') || p === '(absent)')) return [];
  }
  switch (cmd.op) {
    case 'get': {
      const out: string[] = [];
      if (cmd.ifMatch && cmd.ifNoneMatch) out.push('s3.cond.precedence');
      else if (cmd.ifMatch || cmd.ifNoneMatch) {
        const tags = [cmd.ifMatch, cmd.ifNoneMatch];
        // 304 against 412: both refused the read, all the forms' clauses state; the status is
        // s3.cond.get-not-modified's alone.
        const refusedBoth =
          aspect === 'status' && /^(304|412)\b/.test(difference.a) && /^(304|412)\b/.test(difference.b);
        if (refusedBoth) return ['s3.cond.get-not-modified'];
        if (tags.includes('list')) out.push('s3.cond.etag-list');
        if (tags.includes('weak')) out.push('s3.cond.weak-etag');
        if (tags.includes('*')) out.push('s3.cond.wildcard');
        out.push('s3.cond.get-not-modified');
      }
      // A 304 or 412 on either side is the conditions' answer: the range was never reached.
      const conditional = /^(304|412)\b/.test(difference.a) || /^(304|412)\b/.test(difference.b);
      if (cmd.range && !(aspect === 'status' && conditional && out.length))
        out.push(...rangeClauses(cmd.range, difference));
      return out;
    }
    case 'head':
      return cmd.ifNoneMatch ? ['s3.cond.get-not-modified'] : [];
    case 'list': {
      const out = ['s3.list.prefix', 's3.list.key-count'];
      if (cmd.delimiter) out.push('s3.list.delimiter', 's3.list.empty-folder');
      if (cmd.maxKeys !== undefined) out.push('s3.list.max-keys', 's3.list.no-cursor-at-max-keys');
      if (cmd.maxKeys === 0) out.push('s3.list.max-keys-zero');
      if (cmd.startAfter) out.push('s3.list.start-after');
      return out;
    }
    case 'copy':
      return ['s3.copy.etag', ...(cmd.from === cmd.to ? ['s3.copy.onto-itself'] : [])];
    case 'multipart':
      return ['s3.mpu.etag-format', 's3.mpu.zero-length-part'];
    case 'put':
      return [];
    case 'delete':
      return [];
  }
}

function rangeClauses(range: string, difference: Difference): string[] {
  // Content-Range there on one side only is about when it is sent; two values, about the bounds.
  if (
    difference.aspect === 'header:content-range' &&
    (difference.a === '(absent)' || difference.b === '(absent)')
  )
    return ['s3.get.content-range-partial-only'];
  const m = /^bytes=(\d*)-(\d*)$/.exec(range);
  if (!m) return ['s3.get.range-invalid-ignored'];
  if (m[1] !== '' && m[2] !== '' && Number(m[2]) < Number(m[1])) return ['s3.get.range-invalid-ignored'];
  if (m[1] === '' || m[2] === '') return ['s3.get.range-forms'];
  return ['s3.get.range-inclusive', 's3.get.range-206', 's3.get.range-forms', 's3.get.range-unsatisfiable'];
}
