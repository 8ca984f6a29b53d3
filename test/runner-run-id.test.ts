import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newRunId, runIdIn, runIdTime, runPrefix } from '../runner/model/run-id.ts';
import { SUITES_DIR } from '../runner/util/paths.ts';

describe('run ids', () => {
  it('are 10 lower-case characters that carry the second the run started', () => {
    const now = Date.UTC(2024, 5, 1, 12, 30, 45, 678);
    const id = newRunId(now);
    expect(id).toMatch(/^[0-9a-z]{6}[0-9a-f]{4}$/);
    expect(runIdTime(id)).toBe(Date.UTC(2024, 5, 1, 12, 30, 45));
    expect(newRunId(now).slice(0, 6)).toBe(id.slice(0, 6));
    expect(newRunId(0).slice(0, 6)).toBe('000000');
  });

  it('that are not ids have no time', () => {
    for (const bad of ['', 'nothex', 'lx4kq2zzzz', 'LX4KQ2ab12', 'lx4kq2ab1', 'lx4kq2ab123'])
      expect(runIdTime(bad)).toBeUndefined();
  });

  it('are found in names where they follow a separator, and nowhere else', () => {
    const id = newRunId();
    const p = runPrefix(id);
    expect(p).toBe(`ec-${id}`);
    for (const name of [
      p,
      `${p}-a.zone.example`,
      `_sip._tcp.${p}-srv.zone.example`,
      `0-${p}-3-1.zone.example`,
      `r2://${p}/logs?account-id=1`,
      `${p} #3`,
      `${p}.invalid`,
    ])
      expect(runIdIn(name), name).toBe(id);
    for (const name of [
      'ec-nothex',
      `edgecheck-${id}`,
      `xec-${id}`,
      `${p}x`,
      `${p}0`,
      `ec-${id.slice(0, 9)}`,
      `ec-${id.toUpperCase()}`,
      'www.zone.example',
    ])
      expect(runIdIn(name), name).toBeUndefined();
  });

  it('start the name of everything the suites create', () => {
    // Every use of the run id in a suite is the prefix, but the ownership challenge (a token, not a name).
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, e.name);
        if (e.isDirectory()) walk(file);
        else if (/\.(ya?ml|ts)$/.test(e.name)) {
          readFileSync(file, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              for (const m of line.matchAll(/(.{0,3})\$\{(?:run\.id|ctx\.runId)\}/g)) {
                if (m[1] !== 'ec-' && !/ownership/.test(line))
                  offenders.push(`${file}:${i + 1}: ${line.trim()}`);
              }
            });
        }
      }
    };
    walk(SUITES_DIR);
    expect(offenders).toEqual([]);
  });
});
