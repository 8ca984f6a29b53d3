import type { S3Client } from '@aws-sdk/client-s3';
import type { Agent } from 'undici';
import type { Clause } from '../model/clause.ts';
import type { RunEvent } from '../model/results.ts';
import type { Target } from '../model/target.ts';

/** Everything one run shares across its cases. */
export interface RunContext {
  runId: string;
  target: Target;
  asOf: string;
  profile: 'quick' | 'full';
  seed: number;
  readOnly: boolean;
  timeoutMs: number;
  clauses: Map<string, Clause>;
  agent: Agent;
  /** Created on first use: runs without S3 steps never load the SDK client. */
  s3(): S3Client;
  signal: AbortSignal;
  emit(event: RunEvent): void;
}
