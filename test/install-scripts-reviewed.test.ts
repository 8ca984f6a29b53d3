/**
 * Every install script `npm ci` would meet has been reviewed: each locked package with one is
 * approved in package.json's allowScripts pinned to its locked version, or denied, so a new
 * dependency (or a new version of one) with an install script fails here before any install runs
 * it. What npm itself enforces at install time (.npmrc's strict-allow-scripts) is checked too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './helpers/cli.ts';

interface Locked {
  name?: string;
  version?: string;
  resolved?: string;
  link?: boolean;
  inBundle?: boolean;
  hasInstallScript?: boolean;
}

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
const lock: { packages: Record<string, Locked> } = JSON.parse(read('package-lock.json'));
const allowScripts: Record<string, boolean> = JSON.parse(read('package.json')).allowScripts ?? {};

/** The locked packages with an install script, by the name npm matches allowScripts against. */
const withScripts = Object.entries(lock.packages)
  .filter(([where, p]) => where !== '' && p.hasInstallScript && !p.link && !p.inBundle)
  .map(([where, p]) => ({
    where,
    name: p.name ?? where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length),
    version: p.version!,
    resolved: p.resolved,
  }));

/** An allowScripts key split into its name and version (undefined for a name-only entry). */
function parseKey(key: string): { name: string; version?: string } {
  const at = key.indexOf('@', 1);
  return at < 0 ? { name: key } : { name: key.slice(0, at), version: key.slice(at + 1) };
}

describe('install scripts are reviewed', () => {
  it('the lockfile has packages with install scripts to check', () => {
    expect(withScripts.map((p) => p.name)).toContain('esbuild');
  });

  it.each(withScripts.map((p) => [`${p.name}@${p.version}`, p] as const))(
    '%s is approved at its locked version or denied',
    (_label, p) => {
      const approved = allowScripts[`${p.name}@${p.version}`] === true;
      const denied = allowScripts[p.name] === false;
      expect(
        approved || denied,
        `${p.name}@${p.version} has an install script that allowScripts in package.json neither approves at ` +
          'that version nor denies: review it, then run npm install-scripts approve (or deny) ' +
          `${p.name}, and say why in README.md ("Install scripts")`,
      ).toBe(true);
      if (approved) {
        // npm checks a pin against the version in the lockfile's registry URL, never the tarball's own.
        const base = p.name.split('/').pop();
        expect(
          p.resolved,
          `${p.where} has no registry URL in package-lock.json, so npm cannot match its pin`,
        ).toMatch(
          new RegExp(`/${p.name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/-/${base}-${p.version}\\.tgz$`),
        );
      }
    },
  );

  it('every entry names a locked package with an install script; approvals are pinned, denials by name', () => {
    for (const [key, allow] of Object.entries(allowScripts)) {
      const { name, version } = parseKey(key);
      const locked = withScripts.filter((p) => p.name === name);
      expect(
        locked,
        `allowScripts entry ${key} matches no locked package with an install script`,
      ).not.toEqual([]);
      if (allow) {
        expect(
          locked.map((p) => p.version),
          `${key} is approved at a version that is not locked`,
        ).toContain(version);
      } else {
        expect(version, `${key} is denied at one version only: deny it by name`).toBeUndefined();
      }
    }
  });

  it('the project .npmrc makes an unreviewed script fail the install and keeps registry URLs in the lockfile', () => {
    const settings = new Map(
      read('.npmrc')
        .split('\n')
        .filter((line) => /^\s*[^#;\s]/.test(line))
        .map((line) => line.split('=').map((s) => s.trim()) as [string, string]),
    );
    expect(settings.get('strict-allow-scripts')).toBe('true');
    expect(settings.get('omit-lockfile-registry-resolved')).toBe('false');
  });
});
