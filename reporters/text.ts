/**
 * Text from a target (messages, bodies) can hold terminal escapes or stray bytes; show them as
 * visible escapes instead of letting them reach the terminal or a log viewer.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => {
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/** One line: newlines and tabs become spaces, runs of spaces collapse. */
export function oneLine(text: string): string {
  return printable(text.replace(/\s+/g, ' ').trim());
}

/** Cuts long text, saying how much was left out. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

export function padEnd(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}
