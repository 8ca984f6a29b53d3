import http from 'node:http';
import https from 'node:https';
import * as S3 from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { generateStream } from '../data/generate.ts';
import type { S3Target } from '../model/target.ts';
import { GeneratedBody } from '../template/resolve.ts';
import { errorMessage, InputError, TargetError } from '../util/errors.ts';
import { lookupLocalhost } from './agent.ts';
import { collectBody, emptyBody, flattenHeaders, StepResponse } from './response.ts';

/** The real SDK, pointed at the target; one client per run so connections are reused. */
export function createS3Client(target: S3Target, connections: number, timeoutMs: number): S3.S3Client {
  const agentOptions = {
    keepAlive: true,
    maxSockets: Math.max(connections, 4),
    lookup: lookupLocalhost as any,
  };
  return new S3.S3Client({
    endpoint: target.endpoint,
    region: target.region,
    forcePathStyle: target.addressing === 'path',
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
    maxAttempts: 1,
    // What the SDK would print (advice to use lib-storage, ...) is not the run's output; outcomes are in the results.
    logger: { debug() {}, info() {}, warn() {}, error() {}, trace() {} },
    // Checksums only when an operation requires them, as most S3-compatible services expect.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent(agentOptions),
      httpsAgent: new https.Agent(agentOptions),
      requestTimeout: timeoutMs,
      connectionTimeout: timeoutMs,
    }),
  });
}

type CommandCtor = new (input: Record<string, unknown>) => S3.$Command<any, any, any, any, any>;

export function commandFor(name: string): CommandCtor | undefined {
  const ctor = (S3 as Record<string, unknown>)[`${name}Command`];
  return typeof ctor === 'function' ? (ctor as CommandCtor) : undefined;
}

/** Turns resolved YAML input into SDK input: generated bodies stream, with their length. */
function toSdkInput(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v instanceof GeneratedBody) {
      out[k] = generateStream(v.seed, 0, v.size);
      if (k === 'Body' && input.ContentLength === undefined) out.ContentLength = v.size;
    } else out[k] = v;
  }
  return out;
}

/** Runs one command; the response's headers come from the wire, the output from the SDK. */
export async function sendS3Command(
  client: S3.S3Client,
  name: string,
  input: Record<string, unknown>,
  signal: AbortSignal,
): Promise<StepResponse> {
  const Ctor = commandFor(name);
  if (!Ctor) throw new InputError('s3', `unknown S3 command '${name}'`);
  const command = new Ctor(toSdkInput(input));
  let wire: { statusCode: number; headers: Record<string, string> } | undefined;
  command.middlewareStack.add(
    (next: any) => async (args: any) => {
      const result = await next(args);
      wire = { statusCode: result.response.statusCode, headers: result.response.headers };
      return result;
    },
    { step: 'deserialize', priority: 'low', name: 'edgecheckWireCapture' } as any,
  );
  try {
    const output = (await client.send(command, { abortSignal: signal })) as Record<string, any>;
    const { $metadata, Body, ...rest } = output;
    const body =
      Body && typeof Body[Symbol.asyncIterator] === 'function' ? await collectBody(Body) : emptyBody();
    return new StepResponse(
      $metadata?.httpStatusCode ?? wire?.statusCode ?? 0,
      flattenHeaders(wire?.headers ?? {}),
      body,
      rest,
    );
  } catch (err) {
    const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
    const status = e.$metadata?.httpStatusCode ?? wire?.statusCode;
    // No status, or a success status the SDK could not parse: the runner cannot judge it.
    if (status === undefined || status < 300 || signal.aborted)
      throw new TargetError(`${name}: ${errorMessage(err)}`);
    return new StepResponse(status, flattenHeaders(wire?.headers ?? {}), emptyBody(), undefined, {
      name: e.name ?? 'Error',
      message: e.message ?? '',
    });
  }
}
