import type { RunResults } from '../runner/model/results.ts';

/**
 * proxy and judge: what passed that was not judged, in one line: answers saying the service was
 * busy or down, and requests the target never answered. Undefined when there were none.
 */
export function troubleLine(results: RunResults): string | undefined {
  const parts: string[] = [];
  const busy = Object.entries(results.busy ?? {}).filter(([, n]) => n > 0);
  const busyTotal = busy.reduce((sum, [, n]) => sum + n, 0);
  if (busyTotal)
    parts.push(
      `${busyTotal} ${busyTotal === 1 ? 'answer' : 'answers'} said the service was busy or down (${busy
        .map(([status, n]) => `${status}: ${n}`)
        .join(', ')}) and judged nothing`,
    );
  const upstream = Object.entries(results.upstreamErrors ?? {}).filter(([, n]) => n > 0);
  const upstreamTotal = upstream.reduce((sum, [, n]) => sum + n, 0);
  if (upstreamTotal)
    parts.push(
      `${upstreamTotal} ${upstreamTotal === 1 ? 'request' : 'requests'} got no answer from the target (${upstream
        .map(([kind, n]) => `${kind}: ${n}`)
        .join(', ')})`,
    );
  return parts.length ? `${parts.join('; ')}.` : undefined;
}
