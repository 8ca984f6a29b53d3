import { readSmallBody } from './body.ts';
import type { S3Call } from './call.ts';
import { malformedXml, S3Error } from './errors.ts';
import { parseXml } from './xml.ts';

/** The XML declaration the AWS SDKs put before every request document. */
const SDK_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/**
 * Reads and parses a request document. SPEC behaviour 16: a leading XML declaration is accepted; anything
 * that is not well-formed is 400 MalformedXML. Undefined for an empty body.
 */
export async function readRequestXml(
  call: S3Call,
  limit?: number,
  checksumHeadersNotOfBody = false,
): Promise<Record<string, unknown> | undefined> {
  const body = (
    await readSmallBody(call.req, call.payloadHash, limit, call.chunkSignature, checksumHeadersNotOfBody)
  ).toString('utf8');
  if (body.trim() === '') return undefined;
  try {
    const declared = body.trim().startsWith('<?xml');
    // Under a fault, only the declaration the AWS SDKs write is taken; any other is refused.
    const sdkDeclaration = body.trim().startsWith(SDK_DECLARATION);
    return parseXml(
      body,
      declared &&
        (call.ctx.faults.has('s3-xml-declaration-rejected') ||
          (!sdkDeclaration && call.ctx.faults.has('s3-xml-declaration-sdk-form-only'))),
    );
  } catch {
    if (call.ctx.faults.has('s3-malformed-xml-500')) {
      throw new S3Error(500, 'InternalError', 'We encountered an internal error. Please try again.');
    }
    throw malformedXml();
  }
}
