import { Hash } from '@smithy/hash-node';

/** SHA-256 for AWS's signer, on Node's crypto (the SDK's own choice on Node): signing stays cheap. */
export const NodeSha256 = Hash.bind(null, 'sha256') as unknown as new (secret?: unknown) => Hash;
