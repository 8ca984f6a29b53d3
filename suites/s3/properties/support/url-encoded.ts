import { urlDecode } from './keys.ts';
import { expectThat } from './wire.ts';

/** What S3's encoding-type url sends: printable ASCII, no space. */
export const sentEncoded = (s: string): boolean => /^[\x21-\x7e]*$/.test(s);

/** With encoding-type url, every key and common prefix is sent encoded: printable ASCII, no space. */
export function judgeEncoded(raw: string[], label: string): void {
  const unencoded = raw.filter((s) => !sentEncoded(s));
  expectThat(unencoded.length === 0, `${label}: sent unencoded ${JSON.stringify(unencoded)}`);
}

/** Whether `s` is a URL encoding of UTF-8 text (%E9 alone, a Latin-1 escape, is none). */
export function decodes(s: string): boolean {
  try {
    urlDecode(s);
    return true;
  } catch {
    return false;
  }
}
