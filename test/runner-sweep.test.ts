import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_CREDENTIALS } from '../reference/context.ts';
import { BINDINGS_BUCKET } from '../reference/s3/bindings.ts';
import { type ReferenceHandle, startReference } from '../reference/server.ts';
import { today } from '../runner/api.ts';
import { newRunId } from '../runner/model/run-id.ts';
import { createS3Client } from '../runner/transports/s3-sdk.ts';
import { runMain } from './helpers/cli.ts';
import { startServer } from './helpers/engine-server.ts';
import { startMutatingProxy } from './suite-management-proxy.ts';

/*
 * `edgecheck sweep` on what interrupted runs leave: objects of two runs of different ages, of every kind
 * the suites create, next to look-alikes that carry no valid run prefix and must never be touched.
 */

const HOUR = 3_600_000;
const OLD = newRunId(Date.now() - 3 * 24 * HOUR);
const YOUNG = newRunId(Date.now() - HOUR);

let r: ReferenceHandle;
let s3: S3Client;
let tmp: string;
let zone: string;
let logFieldsRuleset: string;
const savedEnv: Record<string, string | undefined> = {};

async function api(method: string, p: string, body?: unknown, base = r.urls.management): Promise<any> {
  const res = await fetch(`${base}/client/v4${p}`, {
    method,
    headers: { authorization: `Bearer ${REFERENCE_CREDENTIALS.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { success: boolean; result: any; errors: unknown[] };
  if (!json.success) throw new Error(`${method} ${p}: ${JSON.stringify(json.errors)}`);
  return json.result;
}

const Z = () => `/zones/${r.context.ids.zoneId}`;
const A = () => `/accounts/${r.context.ids.accountId}`;

async function bucketWithLeftovers(name: string): Promise<void> {
  await s3.send(new CreateBucketCommand({ Bucket: name }));
  await s3.send(new PutObjectCommand({ Bucket: name, Key: 'left/behind.txt', Body: 'x' }));
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: name, Key: 'open' }));
  await s3.send(new UploadPartCommand({ Bucket: name, Key: 'open', UploadId, PartNumber: 1, Body: 'part' }));
}

/** What one interrupted run leaves: one object of each kind. */
async function leaveBehind(id: string, phase: string): Promise<void> {
  await bucketWithLeftovers(`ec-${id}-1-b`);
  await api('POST', `${Z()}/dns_records`, {
    type: 'A',
    name: `ec-${id}-a.${zone}`,
    content: '192.0.2.7',
    ttl: 300,
  });
  await api('POST', `${Z()}/dns_records`, {
    type: 'SRV',
    name: `_sip._tcp.ec-${id}-srv.${zone}`,
    ttl: 300,
    data: { priority: 10, weight: 5, port: 5060, target: 'sip.example.com' },
  });
  await api('POST', `${Z()}/rulesets`, { name: `ec-${id}-ts`, kind: 'zone', description: `ec-${id}`, phase });
  await api('POST', `${A()}/rulesets`, {
    name: `ec-${id}`,
    kind: 'custom',
    description: `ec-${id}`,
    phase: 'http_request_firewall_custom',
  });
  await api('POST', `${Z()}/logpush/jobs`, {
    name: `ec-${id}`,
    destination_conf: `r2://ec-${id}/logs`,
    dataset: 'http_requests',
    logpull_options: 'fields=RayID&timestamps=rfc3339',
  });
  await api('POST', `${Z()}/rulesets/${logFieldsRuleset}/rules`, {
    action: 'log_custom_field',
    expression: 'true',
    description: `ec-${id} #0`,
    action_parameters: { request_fields: [{ name: `x-${id}` }] },
  });
}

/** The look-alikes: names near the prefix, and the account's own objects. */
async function leaveLookAlikes(): Promise<void> {
  for (const b of ['ec-nothex-1', `edgecheck-${OLD}`, 'photos', `ec-${OLD}x`]) await bucketWithLeftovers(b);
  for (const name of ['ec-nothex', `edgecheck-${OLD}`, `xec-${OLD}`, 'www2', 'ec-000000abcd'])
    await api('POST', `${Z()}/dns_records`, {
      type: 'A',
      name: `${name}.${zone}`,
      content: '192.0.2.8',
      ttl: 300,
    });
  await api('POST', `${A()}/rulesets`, {
    name: `edgecheck-${OLD}`,
    kind: 'custom',
    description: 'not ours',
    phase: 'http_request_firewall_custom',
  });
  await api('POST', `${A()}/rulesets`, {
    name: 'ec-nothex',
    kind: 'custom',
    phase: 'http_request_firewall_custom',
  });
  for (const name of [`edgecheck-${OLD}`, 'site-logs'])
    await api('POST', `${Z()}/logpush/jobs`, {
      name,
      destination_conf: 'r2://site-logs/http',
      dataset: 'http_requests',
    });
}

/** Everything on the reference, by kind, as names (rules: descriptions). */
async function state(): Promise<Record<string, string[]>> {
  const buckets = (await s3.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name!) ?? [];
  const uploads: string[] = [];
  for (const b of buckets) {
    const page = await s3.send(new ListMultipartUploadsCommand({ Bucket: b }));
    for (const u of page.Uploads ?? []) uploads.push(`${b}/${u.Key}`);
  }
  const names = (items: { name?: string }[]) => items.map((i) => String(i.name)).sort();
  const rules = (await api('GET', `${Z()}/rulesets/${logFieldsRuleset}`)).rules as { description?: string }[];
  return {
    buckets: buckets.sort(),
    uploads: uploads.sort(),
    dns: names(await api('GET', `${Z()}/dns_records?per_page=1000`)),
    zoneRulesets: names(await api('GET', `${Z()}/rulesets?per_page=1000`)),
    accountRulesets: names(await api('GET', `${A()}/rulesets?per_page=1000`)),
    logpush: names(await api('GET', `${Z()}/logpush/jobs`)),
    logFieldsRules: rules.map((x) => String(x.description)).sort(),
  };
}

function targetFlags(base = r.urls.management): string[] {
  return [
    '--management-url',
    base,
    '--s3-endpoint',
    r.urls.s3,
    '--account-id',
    r.context.ids.accountId,
    '--zone-id',
    r.context.ids.zoneId,
  ];
}

const sweep = (...args: string[]) => runMain(['sweep', ...targetFlags(), ...args]);

/** The object lines of a sweep's output, as `kind|name|run`. */
function listed(stdout: string): string[] {
  return stdout
    .split('\n')
    .map((line) => line.replace(/^deleted {2}/, ''))
    .flatMap((line) => {
      const m =
        /^(bucket|DNS record|zone ruleset|account ruleset|rule|log-push job) +(\S+(?: #\d+)?) .*run (\w+) /.exec(
          line,
        );
      return m ? [`${m[1]}|${m[2]}|${m[3]}`] : [];
    })
    .sort();
}

function expected(id: string): string[] {
  return [
    `bucket|ec-${id}-1-b|${id}`,
    `DNS record|ec-${id}-a.${zone}|${id}`,
    `DNS record|_sip._tcp.ec-${id}-srv.${zone}|${id}`,
    `zone ruleset|ec-${id}-ts|${id}`,
    `account ruleset|ec-${id}|${id}`,
    `log-push job|ec-${id}|${id}`,
    `rule|ec-${id} #0|${id}`,
  ].sort();
}

beforeAll(async () => {
  for (const k of ['EDGECHECK_API_TOKEN', 'EDGECHECK_S3_ACCESS_KEY_ID', 'EDGECHECK_S3_SECRET_ACCESS_KEY']) {
    savedEnv[k] = process.env[k];
  }
  process.env.EDGECHECK_API_TOKEN = REFERENCE_CREDENTIALS.token;
  process.env.EDGECHECK_S3_ACCESS_KEY_ID = REFERENCE_CREDENTIALS.accessKeyId;
  process.env.EDGECHECK_S3_SECRET_ACCESS_KEY = REFERENCE_CREDENTIALS.secretAccessKey;
  tmp = mkdtempSync(path.join(tmpdir(), 'edgecheck-sweep-'));
  r = await startReference({ asOf: today() });
  s3 = createS3Client(r.target().s3!, 4, 10_000);
  zone = (await api('GET', Z())).name;
  // The account's own custom log fields ruleset, with its own rule: shared, never deleted.
  const rs = await api('PUT', `${Z()}/rulesets/phases/http_log_custom_fields/entrypoint`, {
    rules: [
      {
        action: 'log_custom_field',
        expression: 'true',
        description: "the account's own fields",
        action_parameters: { request_fields: [{ name: 'x-kept' }] },
      },
    ],
  });
  logFieldsRuleset = rs.id;
  await leaveBehind(OLD, 'http_request_firewall_custom');
  await leaveBehind(YOUNG, 'http_request_late_transform');
  await leaveLookAlikes();
}, 60_000);

afterAll(async () => {
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  s3?.destroy();
  await r?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('edgecheck sweep on what interrupted runs left', () => {
  it('lists every kind for both runs, with ages, and the command that deletes them; touches nothing', async () => {
    const before = await state();
    const out = await sweep();
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(listed(out.stdout)).toEqual([...expected(OLD), ...expected(YOUNG)].sort());
    expect(out.stdout).toMatch(/ 3d 0h old/);
    expect(out.stdout).toMatch(/ 1h 0m old/);
    expect(out.stdout).toContain('14 objects from 2 runs; to delete them:');
    expect(out.stdout).toMatch(/\n {2}edgecheck sweep --management-url \S+ .* --delete\n/);
    expect(out.stdout).not.toContain(REFERENCE_CREDENTIALS.token);
    expect(await state()).toEqual(before);
  });

  it('--run-id and --older-than select one run, older runs, or both together', async () => {
    expect(listed((await sweep('--run-id', YOUNG)).stdout)).toEqual(expected(YOUNG));
    expect(listed((await sweep('--older-than', '2d')).stdout)).toEqual(expected(OLD));
    expect(listed((await sweep('--older-than', '30m')).stdout)).toEqual(
      [...expected(OLD), ...expected(YOUNG)].sort(),
    );
    expect(listed((await sweep('--older-than', '2h', '--run-id', OLD)).stdout)).toEqual(expected(OLD));
    const none = await sweep('--older-than', '2h', '--run-id', YOUNG);
    expect(none.code).toBe(0);
    expect(listed(none.stdout)).toEqual([]);
    expect(none.stdout).toContain('nothing found');
  });

  it('--delete removes exactly the selected objects, then the rest, and a last sweep finds nothing', async () => {
    const before = await state();
    const config = path.join(tmp, 'target.yaml');
    writeFileSync(
      config,
      [
        'name: reference',
        `management: { baseUrl: "${r.urls.management}", accountId: ${r.context.ids.accountId}, zoneId: ${r.context.ids.zoneId} }`,
        `s3: { endpoint: "${r.urls.s3}" }`,
      ].join('\n'),
    );

    const old = await runMain(['sweep', '--config', config, '--older-than', '2d', '--delete']);
    expect(old.code).toBe(0);
    expect(listed(old.stdout)).toEqual(expected(OLD));
    expect(old.stdout).toContain('deleted 7 of 7 objects from 1 run');
    // The run's objects, not the look-alikes that merely contain its prefix (`xec-<id>`, `ec-<id>x`).
    const gone = (names: string[], id: string) =>
      names.filter((n) => !new RegExp(`(^|[._/ ])ec-${id}([-.#/ ]|$)`).test(n));
    const afterOld = await state();
    expect(afterOld).toEqual({
      buckets: gone(before.buckets, OLD),
      uploads: gone(before.uploads, OLD),
      dns: gone(before.dns, OLD),
      zoneRulesets: gone(before.zoneRulesets, OLD),
      accountRulesets: gone(before.accountRulesets, OLD),
      logpush: gone(before.logpush, OLD),
      logFieldsRules: gone(before.logFieldsRules, OLD),
    });

    const rest = await sweep('--delete');
    expect(rest.code).toBe(0);
    expect(listed(rest.stdout)).toEqual(expected(YOUNG));
    const after = await state();
    // What stays is exactly the account's own objects and the look-alikes.
    expect(after).toEqual({
      buckets: gone(afterOld.buckets, YOUNG),
      uploads: gone(afterOld.uploads, YOUNG),
      dns: gone(afterOld.dns, YOUNG),
      zoneRulesets: gone(afterOld.zoneRulesets, YOUNG),
      accountRulesets: gone(afterOld.accountRulesets, YOUNG),
      logpush: gone(afterOld.logpush, YOUNG),
      logFieldsRules: gone(afterOld.logFieldsRules, YOUNG),
    });
    // The reference's bindings bucket is the account's own too: the probe's bucket, never swept.
    expect(after.buckets).toEqual(
      ['ec-nothex-1', `ec-${OLD}x`, `edgecheck-${OLD}`, 'photos', BINDINGS_BUCKET].sort(),
    );
    expect(after.logFieldsRules).toEqual(["the account's own fields"]);
    expect(after.dns).toEqual(
      expect.arrayContaining([`ec-nothex.${zone}`, `edgecheck-${OLD}.${zone}`, `www2.${zone}`]),
    );

    const last = await sweep();
    expect(last.code).toBe(0);
    expect(listed(last.stdout)).toEqual([]);
    expect(last.stdout).toContain('nothing found');
  });
});

describe('edgecheck sweep on a target that lacks an endpoint', () => {
  it('a 404 to one kind’s list is named, the other kinds are still looked at, and the exit code is 1', async () => {
    const id = newRunId(Date.now() - 5 * HOUR);
    await api('POST', `${Z()}/dns_records`, {
      type: 'A',
      name: `ec-${id}-a.${zone}`,
      content: '192.0.2.9',
      ttl: 300,
    });
    const proxy = await startMutatingProxy(r.urls.management, {
      response: (ex) => {
        if (!/\/logpush\/jobs$/.test(ex.path)) return false;
        ex.status = 404;
        ex.json = {
          success: false,
          errors: [{ code: 7003, message: 'No route for that URI' }],
          result: null,
        };
        return true;
      },
    });
    try {
      const flags = targetFlags(proxy.url);
      const listing = await runMain(['sweep', ...flags]);
      expect(listing.code).toBe(1);
      expect(listing.stdout).toMatch(
        /^could not look at log-push jobs: GET \/zones\/\w+\/logpush\/jobs answered 404: 7003 No route for that URI$/m,
      );
      expect(listed(listing.stdout)).toEqual([`DNS record|ec-${id}-a.${zone}|${id}`]);

      const deleting = await runMain(['sweep', ...flags, '--delete']);
      expect(deleting.code).toBe(1);
      expect(deleting.stdout).toMatch(/^could not look at log-push jobs: /m);
      expect(deleting.stdout).toContain('deleted 1 of 1 object from 1 run');
    } finally {
      await proxy.close();
    }
  });

  it('a delete answered with success is not believed: the object still listed afterwards is named, exit 1', async () => {
    const id = newRunId(Date.now() - 5 * HOUR);
    const record = { id: 'r1', name: `ec-${id}-a.example.com`, zone_name: 'example.com' };
    const envelope = (result: unknown) => JSON.stringify({ success: true, errors: [], messages: [], result });
    // Lists the record every time and answers 200 to its DELETE without deleting it.
    const target = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.method === 'DELETE') res.end(envelope({ id: 'r1' }));
      else res.end(envelope(/\/dns_records\?/.test(req.url) ? [record] : []));
    });
    try {
      const out = await runMain([
        'sweep',
        '--management-url',
        target.url,
        '--account-id',
        'a',
        '--zone-id',
        'z',
        '--delete',
      ]);
      expect(out.code).toBe(1);
      expect(out.stdout).toContain(
        `could not delete DNS record ec-${id}-a.example.com (r1): still there after DELETE /zones/z/dns_records/r1 answered 200`,
      );
      expect(out.stdout).toContain('deleted 0 of 1 object from 1 run');
      expect(target.seen.filter((r) => r.method === 'DELETE').map((r) => r.url)).toEqual([
        '/client/v4/zones/z/dns_records/r1',
      ]);
    } finally {
      await target.close();
    }
  });

  it('bad selections are one-line input errors', async () => {
    const bad = await sweep('--older-than', '2 days');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^edgecheck: --older-than 2 days: write a number and a unit/);
    const id = await sweep('--run-id', 'ec-nothex');
    expect(id.code).toBe(2);
    expect(id.stderr).toMatch(/^edgecheck: --run-id ec-nothex: not a run id/);
    const none = await runMain(['sweep']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^edgecheck: sweep: name a target/);
  });
});
