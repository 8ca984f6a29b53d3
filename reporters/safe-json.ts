/**
 * JSON text for values the runner hands over as `unknown` (expected / actual): bigints become
 * strings, buffers a short note, cycles a marker, so a report never fails on an odd value.
 */
export function safeJson(value: unknown, indent?: number): string {
  const seen = new WeakSet<object>();
  const text = JSON.stringify(
    value,
    function replacer(this: unknown, key: string, v: unknown) {
      // Buffer#toJSON runs before the replacer, so read the raw value from the holder.
      const raw = key === '' ? v : (this as Record<string, unknown>)[key];
      if (typeof raw === 'bigint') return raw.toString();
      if (Buffer.isBuffer(raw)) return `<${raw.length} bytes>`;
      if (raw instanceof Uint8Array) return `<${raw.byteLength} bytes>`;
      if (typeof v === 'object' && v !== null) {
        if (seen.has(v)) return '[Circular]';
        seen.add(v);
      }
      return v;
    },
    indent,
  );
  return text ?? 'undefined';
}
