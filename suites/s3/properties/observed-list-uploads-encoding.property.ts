import type { ObservedView, PropertyDef } from 'edgecheck/kit';
import { described } from './support/exchange.ts';
import { decodes, judgeEncoded } from './support/url-encoded.ts';
import { expectThat } from './support/wire.ts';
import { xmlResult } from './support/xml.ts';

/*
 * ListMultipartUploads asked for with encoding-type url sends every upload's Key URL-encoded, as the
 * listing observer judges ListObjects keys: printable ASCII, no space, and a URL encoding of UTF-8.
 * The clause speaks of Key alone: the echoes (EncodingType, Prefix, markers) are left to the run.
 * One exchange at a time, nothing kept.
 */

/** The Keys of a ListMultipartUploads answered 200 to encoding-type url, as sent; else undefined. */
function encodedUploadKeys(ex: ObservedView): string[] | undefined {
  if (ex.door !== 's3' || ex.method !== 'GET' || ex.status !== 200) return undefined;
  if (!ex.query.has('uploads') || ex.query.has('uploadId') || ex.query.get('encoding-type') !== 'url')
    return undefined;
  let doc: Record<string, any> | undefined;
  try {
    doc = xmlResult(ex.text(), 'ListMultipartUploadsResult');
  } catch {
    return undefined;
  }
  const uploads: unknown[] = doc?.Upload ?? [];
  const keys = uploads.map((u: any) => u?.Key).filter((k): k is string => typeof k === 'string');
  return keys.length ? keys : undefined;
}

const listUploadsEncoding: PropertyDef = {
  id: 's3.prop.list-uploads-encoding-observed',
  title: 'ListMultipartUploads asked for with encoding-type url sends every Key URL-encoded',
  clauses: ['s3.mpu.list-uploads-encoding'],
  observe: {
    selects:
      'ListMultipartUploads (GET ?uploads) asked for with encoding-type url, answered 200 listing an upload',
    observer: () => (ex) => {
      const keys = encodedUploadKeys(ex);
      if (keys === undefined) return undefined;
      judgeEncoded(keys, described(ex));
      const undecodable = keys.filter((k) => !decodes(k));
      expectThat(
        undecodable.length === 0,
        `${described(ex)}: Keys ${JSON.stringify(undecodable)} are no URL encoding of UTF-8`,
      );
      return true;
    },
  },
};

export default [listUploadsEncoding] satisfies PropertyDef[];
