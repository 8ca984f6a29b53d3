import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  PutBucketCorsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { REFERENCE_CREDENTIALS } from '../reference/context.ts';
import { type ReferenceHandle, startReference } from '../reference/server.ts';
import { snapshotReference } from '../reference/snapshot.ts';
import { runEdgecheck, today } from '../runner/api.ts';
import type { RunResults } from '../runner/model/results.ts';

/*
 * A full run (every suite) against a zone and an account already in use leaves the
 * reference's whole state exactly as it found it: zone and DNS settings, DNS records, rulesets,
 * log-push jobs, invitations, certificate packs, migration configs, buckets, objects and open uploads.
 */

const SUITES = ['management', 'deprecations', 's3'];
let started: ReferenceHandle | undefined;
let client: S3Client | undefined;

afterEach(async () => {
  client?.destroy();
  client = undefined;
  await started?.close();
  started = undefined;
});

async function api(r: ReferenceHandle, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${r.urls.management}/client/v4${path}`, {
    method,
    headers: { authorization: `Bearer ${REFERENCE_CREDENTIALS.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { success: boolean; result: any; errors: unknown[] };
  if (!json.success) throw new Error(`${method} ${path}: ${JSON.stringify(json.errors)}`);
  return json.result;
}

/** What a real user's zone and account might hold before anyone runs edgecheck against them. */
async function useLikeAUser(r: ReferenceHandle, securityLevel: string | undefined): Promise<void> {
  const zone = `/zones/${r.context.ids.zoneId}`;
  const account = `/accounts/${r.context.ids.accountId}`;
  if (securityLevel) await api(r, 'PATCH', `${zone}/settings/security_level`, { value: securityLevel });
  await api(r, 'PATCH', `${zone}/settings/always_use_https`, { value: 'on' });
  await api(r, 'PATCH', `${zone}/settings/min_tls_version`, { value: '1.3' });
  await api(r, 'PATCH', `${zone}/dns_settings`, { multi_provider: true, ns_ttl: 3600 });
  await api(r, 'PUT', `${zone}/rulesets/phases/http_log_custom_fields/entrypoint`, {
    rules: [
      {
        action: 'log_custom_field',
        expression: 'true',
        description: 'user fields',
        action_parameters: {
          request_fields: [{ name: 'x-user-kept' }],
          cookie_fields: [{ name: 'Session' }],
        },
      },
    ],
  });
  await api(r, 'POST', `${account}/rulesets`, {
    name: 'user custom ruleset',
    kind: 'custom',
    phase: 'http_request_firewall_custom',
  });
  await api(r, 'POST', `${zone}/dns_records`, {
    type: 'A',
    name: 'shop.example.com',
    content: '198.51.100.7',
    ttl: 300,
    comment: 'the shop',
  });
  await api(r, 'POST', `${zone}/dns_records`, {
    type: 'TXT',
    name: 'example.com',
    content: 'v=spf1 -all',
    ttl: 3600,
  });
  await api(r, 'POST', `${zone}/logpush/jobs`, {
    dataset: 'http_requests',
    destination_conf: 'r2://user-logs/http/{DATE}',
    name: 'user-job',
    enabled: true,
  });
  await api(r, 'PUT', `${account}/r2/buckets/user-assets/migration`, {
    status: 'enabled',
    source: { provider: 'aws', bucket: 'legacy-assets', region: 'us-east-1' },
  });

  client = new S3Client({
    endpoint: r.urls.s3,
    region: 'auto',
    forcePathStyle: true,
    credentials: {
      accessKeyId: REFERENCE_CREDENTIALS.accessKeyId,
      secretAccessKey: REFERENCE_CREDENTIALS.secretAccessKey,
    },
    maxAttempts: 1,
  });
  await client.send(new CreateBucketCommand({ Bucket: 'user-assets' }));
  await client.send(
    new PutObjectCommand({
      Bucket: 'user-assets',
      Key: 'reports/2024.csv',
      Body: 'month,visits\n1,100\n',
      ContentType: 'text/csv',
      Metadata: { owner: 'ops' },
    }),
  );
  await client.send(
    new PutBucketCorsCommand({
      Bucket: 'user-assets',
      CORSConfiguration: {
        CORSRules: [{ AllowedOrigins: ['https://shop.example.com'], AllowedMethods: ['GET'] }],
      },
    }),
  );
  const upload = await client.send(
    new CreateMultipartUploadCommand({ Bucket: 'user-assets', Key: 'backups/db.tar' }),
  );
  await client.send(
    new UploadPartCommand({
      Bucket: 'user-assets',
      Key: 'backups/db.tar',
      UploadId: upload.UploadId,
      PartNumber: 1,
      Body: 'x'.repeat(1024),
    }),
  );
}

/** The run really ran: most cases judged something, so an equal snapshot is not the result of doing nothing. */
function expectItRan(results: RunResults): void {
  expect(results.summary.cases.pass).toBeGreaterThan(150);
}

describe('a full run leaves the whole state of a zone in use as it found it', () => {
  it.each([
    ['2024-06-01', 'medium'],
    [today(), 'off'],
  ])('as of %s, with security_level %s', async (asOf, level) => {
    const r = await startReference({ asOf });
    started = r;
    await useLikeAUser(r, level);
    const before = snapshotReference(r.state);

    const results = await runEdgecheck({ suites: SUITES, asOf, target: r.target() });

    expect(snapshotReference(r.state)).toEqual(before);
    expectItRan(results);
  });

  it(`as of today, security_level medium (which can no longer be set) is left alone, its checks skipped`, async () => {
    const asOf = today();
    const r = await startReference({ asOf });
    started = r;
    // A zone set to medium before 2024-09-30 keeps it; no PATCH can set it now, so the test sets it in place.
    r.state.management.zoneSettings.set('security_level', {
      value: 'medium',
      modified_on: '2024-06-01T00:00:00.000Z',
    });
    await useLikeAUser(r, undefined);
    const before = snapshotReference(r.state);
    expect((before.management.zoneSettings as Record<string, unknown>).security_level).toBe('medium');

    const results = await runEdgecheck({ suites: SUITES, asOf, target: r.target() });

    expect(snapshotReference(r.state)).toEqual(before);
    expectItRan(results);
    const changing = results.cases.filter((c) =>
      ['mgmt.settings.security-level-off', 'dep.security-level.under-attack-from'].includes(c.id),
    );
    expect(changing.map((c) => [c.id, c.verdict]).sort()).toEqual([
      ['dep.security-level.under-attack-from', 'skipped'],
      ['mgmt.settings.security-level-off', 'skipped'],
    ]);
    for (const c of changing) expect(c.reason).toMatch(/security_level/);
  });
});
