import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from '../runner/util/paths.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  /** Milliseconds the thread was profiled, and busy (not idle). */
  totalMs: number;
  busyMs: number;
  /** Self time by module, most first. */
  modules: { module: string; ms: number }[];
  /** Self time by function (module: name:line), most first. */
  functions: { fn: string; ms: number }[];
}

/**
 * The module a script belongs to: an npm package by name, a file of the project by its folder
 * (runner/load, reference/s3), Node's own internals as `node:`, V8's pseudo-frames as they are.
 */
export function moduleOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node: internals';
  let file = url;
  try {
    if (url.startsWith('file:')) file = fileURLToPath(url);
  } catch {
    return url;
  }
  // A checkout's own build (bin/source-build.mjs) holds the project's files under the cache, which
  // may be another checkout's when node_modules is a link to it: the path below the build is the file's.
  const built = /[\\/]node_modules[\\/]\.cache[\\/]edgecheck[\\/]build-[0-9a-f]+[\\/](.*)$/.exec(file);
  if (built) file = path.join(ROOT, built[1]);
  const nm = file.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  if (nm >= 0) {
    const parts = file.slice(nm + 14).split(path.sep);
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const rel = path.relative(ROOT, file).replace(/^dist[\\/]/, '');
  if (rel.startsWith('..')) return file;
  const dir = path.dirname(rel);
  return dir === '.' ? rel : dir.split(path.sep).slice(0, 2).join('/');
}

/** Self time of each module and function of a `node --cpu-prof` profile. */
export function summarizeProfile(file: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const modules = new Map<string, number>();
  const functions = new Map<string, number>();
  let idleUs = 0;
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    totalUs += us;
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    const mod = moduleOf(url, functionName);
    modules.set(mod, (modules.get(mod) ?? 0) + us);
    const fn = `${mod}: ${functionName || '(anonymous)'}${url ? `:${lineNumber + 1}` : ''}`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const sorted = <K extends string>(m: Map<string, number>, key: K) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({ [key]: name, ms: us / 1000 }) as { [P in K]: string } & { ms: number });
  return {
    totalMs: totalUs / 1000,
    busyMs: (totalUs - idleUs) / 1000,
    modules: sorted(modules, 'module'),
    functions: sorted(functions, 'fn'),
  };
}
