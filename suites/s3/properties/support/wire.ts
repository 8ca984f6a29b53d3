import type { Readable } from 'node:stream';
import {
  Agent,
  buildS3Request,
  type HttpRequest,
  lookupLocalhost,
  type PropertyContext,
  request,
  type S3Target,
} from 'edgecheck/kit';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

export function s3Target(ctx: PropertyContext): S3Target {
  if (!ctx.target.s3) ctx.unjudgeable('the target has no S3 endpoint configured');
  return ctx.target.s3;
}

/** A connection pool of the property's own, closed at teardown; `*.localhost` resolves to loopback. */
export function ownAgent(ctx: PropertyContext): Agent {
  const agent = new Agent({ connect: { lookup: lookupLocalhost as any }, keepAliveTimeout: 1000 });
  ctx.defer(() => agent.close());
  return agent;
}

export async function sendOutgoing(
  agent: Agent,
  out: { method: string; url: string; headers: Record<string, string>; body?: string | Buffer | unknown },
  signal: AbortSignal,
): Promise<Answer> {
  const res = await request(out.url, {
    method: out.method as any,
    headers: out.headers,
    body: out.body as string | Buffer | Readable | undefined,
    dispatcher: agent,
    signal,
  });
  const body = Buffer.from(await res.body.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) {
    if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  // Decoded when read: most answers are judged by status, headers and bytes, and a part's 5 MiB
  // decoded for nothing was a measurable share of a run.
  let text: string | undefined;
  return {
    status: res.statusCode,
    headers,
    body,
    get text() {
      text ??= body.toString('utf8');
      return text;
    },
  };
}

/** A raw S3 request signed for `target` (which a property may vary: region, addressing). */
export async function sendS3(
  ctx: PropertyContext,
  agent: Agent,
  target: S3Target,
  req: Omit<HttpRequest, 'body'> & { body?: string | Buffer },
): Promise<Answer> {
  const out = await buildS3Request(target, req as HttpRequest);
  out.headers['user-agent'] ??= ctx.userAgent;
  return sendOutgoing(agent, out, ctx.signal);
}

/** Fails the property with what was sent and what came back, secrets never included. */
export function expectThat(ok: boolean, what: string, answer?: Answer): void {
  if (ok) return;
  const detail = answer
    ? ` (status ${answer.status}: ${answer.text.slice(0, 160).replace(/\s+/g, ' ')})`
    : '';
  throw new Error(`${what}${detail}`);
}
