import type { ReferenceContext } from '../context.ts';
import type { Handler } from '../server.ts';

/** Placeholder until the S3 interface lands. */
export function createS3Handlers(_ctx: ReferenceContext): { s3: Handler; public: Handler } {
  const notImplemented: Handler = (_req, res) => {
    res.writeHead(501, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NotImplemented</Code><Message>not implemented</Message></Error>');
  };
  return { s3: notImplemented, public: notImplemented };
}
