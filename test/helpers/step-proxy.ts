import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startReference } from '../../reference/server.ts';
import { runEdgecheck } from '../../runner/api.ts';
import type { CaseDef, StepDef } from '../../runner/model/case.ts';
import type { RunResults } from '../../runner/model/results.ts';
import type { Target } from '../../runner/model/target.ts';

/**
 * A front that answers chosen steps of chosen cases itself and passes every other request through
 * to the target unchanged. The runner names the case and step of each request in its User-Agent
 * (`edgecheck/V (case ID; step LABEL)`), so a test can make a target that refuses one step, or
 * accepts what it must refuse, without writing a fault for each.
 */
export type StepAnswer = { status: number; headers?: Record<string, string>; body?: string };

/** The target's answer to a step, rewritten before it is passed on (the body whole, as text). */
export type Rewrite = (answer: Required<StepAnswer>) => StepAnswer;

export interface StepProxy {
  url: string;
  /** Which answers were made here, as `case/step status`. */
  answered: string[];
  close(): Promise<void>;
}

/** The case and step a request names, from its User-Agent. */
export function stepOf(userAgent: string | undefined): { caseId: string; step: string } | undefined {
  const m = /\(case ([^()\s;]+); step ([^()]+)\)$/.exec(userAgent ?? '');
  return m ? { caseId: m[1], step: m[2] } : undefined;
}

export async function startStepProxy(
  upstream: string,
  answer: (caseId: string, step: string, req: IncomingMessage) => StepAnswer | undefined,
  rewrite?: (caseId: string, step: string) => Rewrite | undefined,
): Promise<StepProxy> {
  const up = new URL(upstream);
  const answered: string[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const named = stepOf(String(req.headers['user-agent'] ?? ''));
    const made = named && answer(named.caseId, named.step, req);
    if (named && made) {
      answered.push(`${named.caseId}/${named.step} ${made.status}`);
      req.resume();
      const body = req.method === 'HEAD' ? '' : (made.body ?? '');
      res.writeHead(made.status, { 'content-length': Buffer.byteLength(made.body ?? ''), ...made.headers });
      res.end(body);
      return;
    }
    const out = httpRequest(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers },
      (reply) => {
        const change = named && rewrite?.(named.caseId, named.step);
        if (!change) {
          res.writeHead(reply.statusCode ?? 502, reply.headers);
          reply.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        reply.on('data', (c: Buffer) => chunks.push(c));
        reply.on('end', () => {
          const headers = Object.fromEntries(
            Object.entries(reply.headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
          );
          delete headers['transfer-encoding'];
          const made = change({
            status: reply.statusCode ?? 502,
            headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
          answered.push(`${named.caseId}/${named.step} ${made.status} (rewritten)`);
          const body = made.body ?? '';
          const out = { ...made.headers, 'content-length': String(Buffer.byteLength(body)) };
          res.writeHead(made.status, out);
          res.end(req.method === 'HEAD' ? '' : body);
        });
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  };
  const server = createServer(handle);
  // An Expect: 100-continue is the target's to answer, not this front's.
  server.on('checkContinue', handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const xml = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;

/** A refusal as an S3 target or the management API words it. */
export function refusal(door: 's3' | 'management', status: number, code: string): StepAnswer {
  if (door === 's3') return { status, headers: { 'content-type': 'application/xml' }, body: xml(code, code) };
  const body = JSON.stringify({
    success: false,
    errors: [{ code: 9999, message: code }],
    messages: [],
    result: null,
  });
  return { status, headers: { 'content-type': 'application/json' }, body };
}

/** An acceptance of anything: 200, an ETag, and a body each door's clients read as a success. */
export function acceptance(door: 's3' | 'management'): StepAnswer {
  if (door === 's3') {
    return {
      status: 200,
      headers: { 'content-type': 'application/xml', etag: '"00000000000000000000000000000000"' },
      body: '<?xml version="1.0" encoding="UTF-8"?>\n<Accepted></Accepted>',
    };
  }
  const body = JSON.stringify({ success: true, errors: [], messages: [], result: { id: 'accepted' } });
  return { status: 200, headers: { 'content-type': 'application/json' }, body };
}

/** A step's label in its case, as the runner names it in the User-Agent. */
export function stepLabel(c: CaseDef, s: StepDef): string {
  return s.id ?? (c.given.includes(s) ? `given[${c.given.indexOf(s)}]` : `steps[${c.steps.indexOf(s)}]`);
}

/**
 * One run of one case against a reference of its own (runs may go at once: a zone holds one
 * ruleset per phase), every door of it (S3, management, public) behind a step front.
 */
export async function runCaseThroughFronts(
  caseId: string,
  options: { asOf: string; seed: number },
  answer: (caseId: string, step: string, req: IncomingMessage) => StepAnswer | undefined,
  rewrite?: (caseId: string, step: string) => Rewrite | undefined,
): Promise<{ results: RunResults; answered: string[] }> {
  const reference = await startReference({ asOf: options.asOf });
  const base = reference.target();
  const fronts = await Promise.all(
    [reference.urls.s3, reference.urls.management, reference.urls.public].map((url) =>
      startStepProxy(url, answer, rewrite),
    ),
  );
  const [s3, management, pub] = fronts;
  const target: Target = {
    ...base,
    s3: base.s3 && { ...base.s3, endpoint: s3.url, publicUrl: base.s3.publicUrl && pub.url },
    management: base.management && { ...base.management, baseUrl: management.url },
  };
  try {
    const results = await runEdgecheck({ ...options, cases: [caseId], target, ownedTarget: { faults: [] } });
    return { results, answered: fronts.flatMap((f) => f.answered) };
  } finally {
    await Promise.all(fronts.map((f) => f.close()));
    await reference.close();
  }
}
