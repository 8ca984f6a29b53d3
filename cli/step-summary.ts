import path from 'node:path';

/**
 * On GitHub Actions ($GITHUB_STEP_SUMMARY set), where the markdown summary is appended besides
 * the reporters asked for; undefined when the variable is unset or one of them already writes
 * that file.
 */
export function githubStepSummary(specs: string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = env.GITHUB_STEP_SUMMARY?.trim();
  if (!file) return undefined;
  const same = (spec: string) =>
    /^\s*markdown\s*=/.test(spec) &&
    path.resolve(spec.slice(spec.indexOf('=') + 1).trim()) === path.resolve(file);
  return specs.some(same) ? undefined : file;
}
