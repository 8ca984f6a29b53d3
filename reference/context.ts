import type { ActiveFaults } from './fault-def.ts';
import type { FaultTrace } from './fault-trace.ts';

/** What every part of the reference sees: its date, its faults, its fixed identities. */
export interface ReferenceContext {
  /** YYYY-MM-DD: the date whose behaviour the server implements (deprecation schedule). */
  asOf: string;
  faults: ActiveFaults;
  /** Where fault consults are noted, when the server was started with traceFaults (fault-trace.ts). */
  faultTrace?: FaultTrace;
  /** Directory for object bodies; in memory when absent. */
  dataDir?: string;
  credentials: ReferenceCredentials;
  ids: ReferenceIds;
  /** Filled in by server.ts once the ports are known (public bucket URLs, S3 location headers). */
  urls: { management: string; s3: string; public: string };
}

export interface ReferenceCredentials {
  token: string;
  legacyEmail: string;
  legacyKey: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The bindings probe's shared secret (x-edgecheck-probe-secret). */
  bindingsSecret: string;
}

export interface ReferenceIds {
  accountId: string;
  zoneId: string;
  /** Seeded objects a live account cannot create freely. */
  inviteId: string;
  certificatePackId: string;
}

/** Well-known values: the reference is a local test server, and `edgecheck serve` prints them. */
export const REFERENCE_CREDENTIALS: ReferenceCredentials = {
  token: 'edgecheck-reference-token',
  legacyEmail: 'admin@example.com',
  legacyKey: 'edgecheck-reference-key',
  accessKeyId: 'EDGECHECKREFERENCEKEY',
  secretAccessKey: 'edgecheck-reference-secret-access-key',
  bindingsSecret: 'edgecheck-reference-probe-secret',
};

export const REFERENCE_IDS: ReferenceIds = {
  accountId: '023e105f4ecef8ad9ca31a8372d0c353',
  zoneId: '023e105f4ecef8ad9ca31a8372d0c353'.replace(/^023e/, 'a1b2'),
  inviteId: '4f5f0c14a2a41d5063dd301b2f829f04',
  certificatePackId: '3822ff90-ea29-44df-9e55-21300bb9419b',
};
