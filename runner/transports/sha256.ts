import type { Hash } from '@smithy/hash-node';
import { onFirstUse } from '../util/packages.ts';

const hashNode = onFirstUse<typeof import('@smithy/hash-node')>('@smithy/hash-node');

/** SHA-256 for AWS's signer, on Node's crypto (the SDK's own choice on Node): signing stays cheap. */
export const nodeSha256 = () =>
  hashNode().Hash.bind(null, 'sha256') as unknown as new (
    secret?: unknown,
  ) => Hash;
