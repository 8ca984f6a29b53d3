import { describe, expect, it } from 'vitest';
import { exitCodeOf, processExitCode, severalTargetsExitCode } from '../runner/results/exit-code.ts';

const clean = { bySignal: false, interrupted: false, leftovers: 0, failing: false };

describe("a run's exit code, one rule for a run, a merge and several targets", () => {
  it('0 when nothing fails, 1 when a clause fails or errors', () => {
    expect(exitCodeOf(clean)).toBe(0);
    expect(exitCodeOf({ ...clean, failing: true })).toBe(1);
  });
  it('1 when something is left on the target or the run was cut short, whatever the verdicts', () => {
    expect(exitCodeOf({ ...clean, leftovers: 1 })).toBe(1);
    expect(exitCodeOf({ ...clean, interrupted: true })).toBe(1);
    expect(exitCodeOf({ ...clean, leftovers: 2, baseline: { newFailures: [], fixed: [] } })).toBe(1);
  });
  it('130 when a signal stopped it, before anything else', () => {
    expect(exitCodeOf({ ...clean, bySignal: true, interrupted: true, leftovers: 3, failing: true })).toBe(
      130,
    );
  });
  it('held to a baseline: only a new failure or a fixed one counts', () => {
    expect(exitCodeOf({ ...clean, failing: true, baseline: { newFailures: [], fixed: [] } })).toBe(0);
    expect(exitCodeOf({ ...clean, failing: true, baseline: { newFailures: ['a'], fixed: [] } })).toBe(1);
    expect(exitCodeOf({ ...clean, baseline: { newFailures: [], fixed: ['a'] } })).toBe(1);
  });
  it('several targets: --exit-from names one; else 130 for any interrupted, 1 for any not clean', () => {
    const runs = [
      { exitCode: 0 as const, interrupted: false },
      { exitCode: 1 as const, interrupted: false },
    ];
    expect(severalTargetsExitCode(runs)).toBe(1);
    expect(severalTargetsExitCode(runs, 0)).toBe(0);
    expect(severalTargetsExitCode([runs[0], { exitCode: 130, interrupted: true }])).toBe(130);
    expect(severalTargetsExitCode([runs[0], runs[0]])).toBe(0);
  });
  it("a signal after every case has run leaves the report's code", () => {
    expect(processExitCode({ exitCode: 1, interrupted: false }, true)).toBe(1);
    expect(processExitCode({ exitCode: 1, interrupted: true }, true)).toBe(130);
    expect(processExitCode({ exitCode: 0, interrupted: true }, false)).toBe(0);
  });
});
