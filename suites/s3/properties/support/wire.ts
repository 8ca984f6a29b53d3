import { buildS3Request, type HttpRequest, type PropertyContext, type S3Target } from 'edgecheck/kit';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  /** Whole up to 8 MiB; past that, its first 64 KiB: compare `size` and `md5()` instead. */
  body: Buffer;
  /** The whole body's length and MD5, however much of it `body` keeps. */
  size: number;
  md5(): string;
  text: string;
}

export function s3Target(ctx: PropertyContext): S3Target {
  if (!ctx.target.s3) ctx.unjudgeable('the target has no S3 endpoint configured');
  return ctx.target.s3;
}

/**
 * Sends a request the property built itself through the run's transport (ctx.send): paced,
 * retried when throttled, bounded in time like every other request of the run.
 */
export async function sendOutgoing(
  ctx: PropertyContext,
  out: { method: string; url: string; headers: Record<string, string>; body?: string | Buffer | unknown },
): Promise<Answer> {
  const res = await ctx.send({ ...out, body: out.body as string | Buffer | undefined });
  // Decoded when read: most answers are judged by status, headers and bytes, and a part's 5 MiB
  // decoded for nothing was a measurable share of a run.
  let text: string | undefined;
  return {
    status: res.status,
    headers: res.headers,
    body: res.body,
    size: res.size,
    md5: () => res.md5(),
    get text() {
      text ??= res.body.toString('utf8');
      return text;
    },
  };
}

/** A raw S3 request signed for `target` (which a property may vary: region, addressing). */
export async function sendS3(
  ctx: PropertyContext,
  target: S3Target,
  req: Omit<HttpRequest, 'body'> & { body?: string | Buffer },
): Promise<Answer> {
  const out = await buildS3Request(target, req as HttpRequest);
  out.headers['user-agent'] ??= ctx.userAgent;
  return sendOutgoing(ctx, out);
}

/** Fails the property with what was sent and what came back, secrets never included. */
export function expectThat(ok: boolean, what: string, answer?: Answer): void {
  if (ok) return;
  const detail = answer
    ? ` (status ${answer.status}: ${answer.text.slice(0, 160).replace(/\s+/g, ' ')})`
    : '';
  throw new Error(`${what}${detail}`);
}
