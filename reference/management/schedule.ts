import type { ReferenceContext } from '../context.ts';

/** End-of-life dates of SPEC's Versioning table that the reference implements. */
export const EOL = {
  firewallRules: '2025-01-15',
  wafPackages: '2025-01-15',
  rateLimits: '2025-01-15',
  dnsErrorChain: '2024-10-01',
  securityLevel: '2024-09-30',
  legacyDnsSettings: '2024-09-13',
  brotli: '2024-08-15',
  minify: '2024-08-05',
  lockedField: '2024-07-14',
  mobileRedirect: '2024-06-30',
  serverSideExclude: '2024-06-14',
  srvNameFields: '2024-05-31',
  privacyPass: '2024-03-31',
  oldTunnels: '2024-02-04',
  transferEncodingWithLength: '2023-07-01',
  billing: '2023-06-06',
  accessBookmarks: '2023-03-19',
  scriptMonitor: '2022-10-11',
  directUploadV1: '2022-07-01',
  zoneAnalytics: '2021-03-01',
  organizations: '2020-02-04',
} as const;

/** Dates on which object storage management shapes changed. */
export const CHANGES = {
  migrationShape: '2024-02-06',
  migrationGoogleSource: '2024-01-11',
} as const;

/** On the end-of-life date itself the new behaviour applies (as-of >= date). */
export function since(ctx: ReferenceContext, date: string): boolean {
  return ctx.asOf >= date;
}
