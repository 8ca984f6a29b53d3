import type { ObservedView, Observer } from 'edgecheck/kit';
import { described, errorCodeOf, operationOf } from './exchange.ts';
import { bare, partsListed, UploadsSeen } from './uploads.ts';
import { expectThat } from './wire.ts';

/** The CompleteMultipartUploads of uploads seen, judged against the parts seen uploaded to them. */
function completes(
  judge: (
    ex: ObservedView,
    parts: { number: number; etag: string }[],
    seen: UploadsSeen,
  ) => boolean | undefined,
): Observer {
  const seen = new UploadsSeen();
  return (ex) => {
    try {
      if (operationOf(ex) !== 'CompleteMultipartUpload') return undefined;
      const parts = partsListed(ex);
      return parts?.length ? judge(ex, parts, seen) : undefined;
    } finally {
      seen.observe(ex, true);
    }
  };
}

/** A Complete listing its parts out of ascending order is carried out, not refused as InvalidPartOrder. */
export const sortsParts = (): Observer =>
  completes((ex, parts) => {
    if (parts.every((p, i) => i === 0 || parts[i - 1].number < p.number)) return undefined;
    const code = errorCodeOf(ex);
    expectThat(
      code !== 'InvalidPartOrder',
      `${described(ex)} InvalidPartOrder: parts listed as ${parts.map((p) => p.number)}`,
    );
    return ex.status === 200 ? true : undefined;
  });

/**
 * A Complete naming each part by the ETag its UploadPart answered, some with other quoting, is not
 * refused as InvalidPart.
 */
export const quotesIgnored = (): Observer =>
  completes((ex, parts, seen) => {
    const u = seen.get(ex);
    if (!u) return undefined;
    const answered = parts.map((p) => u.parts.get(p.number)?.etag);
    if (answered.some((e, i) => e === undefined || bare(e) !== bare(parts[i].etag))) return undefined;
    if (answered.every((e, i) => e === parts[i].etag)) return undefined;
    const code = errorCodeOf(ex);
    expectThat(
      code !== 'InvalidPart',
      `${described(ex)} InvalidPart: each part was named by its own ETag, quotes aside`,
    );
    return ex.status === 200 ? true : undefined;
  });

/** Refusal: a Complete whose non-last parts, as seen uploaded, differ in size is not carried out. */
export const unequalRefused = (): Observer =>
  completes((ex, parts, seen) => {
    const u = seen.get(ex);
    if (!u || ex.status !== 200) return undefined;
    const numbers = [...new Set(parts.map((p) => p.number))].sort((a, b) => a - b);
    const sizes = numbers.slice(0, -1).map((n) => u.parts.get(n)?.size);
    if (sizes.length < 2 || sizes.some((s) => s === undefined)) return undefined;
    expectThat(
      sizes.every((s) => s === sizes[0]),
      `${described(ex)}: carried out with non-last parts of ${sizes.join(', ')} bytes`,
    );
    return undefined;
  });
