import { describe, expect, it } from 'vitest';
import { paint } from '../reporters/colors.ts';
import { renderFailure } from '../reporters/failure.ts';
import { check } from './helpers/results-fixture.ts';

const STACK =
  "TypeError: Cannot read properties of undefined (reading 'etag')\n    at run (suites/s3/properties/etag.property.ts:41:17)";

describe('failure renderer: properties', () => {
  it('shows a property failure with its seed and counterexample, and no case lines', () => {
    const lines = renderFailure(
      check({
        caseId: 'prop.etag',
        clauses: ['s3.etag.md5'],
        step: 'property',
        verdict: 'fail',
        origin: 'suites/s3/properties/etag.property.ts',
        message: 'Property failed after 3 runs (replay: --seed 42)\nCounterexample: [{"size":0}]',
      }),
    );
    expect(lines[0]).toBe('fail: Property failed after 3 runs (replay: --seed 42)');
    expect(lines[1]).toBe('  --> suites/s3/properties/etag.property.ts');
    expect(lines).toContain('  Counterexample: [{"size":0}]');
    expect(lines.some((l) => /^\s*\d+ \|/.test(l))).toBe(false);
  });

  it("shows the stack of a property's own exception, and only for that error", () => {
    const own = renderFailure(
      check({
        caseId: 'prop.etag',
        clauses: ['s3.etag.md5'],
        step: 'property',
        verdict: 'error',
        message: "the property's own code failed: Cannot read properties of undefined (seed 42)",
        stack: STACK,
      }),
    );
    expect(own).toContain('stack:');
    expect(own).toContain('      at run (suites/s3/properties/etag.property.ts:41:17)');
    const judged = renderFailure(
      check({
        caseId: 'prop.etag',
        clauses: ['s3.etag.md5'],
        step: 'property',
        verdict: 'fail',
        stack: STACK,
      }),
    );
    expect(judged.join('\n')).not.toContain('at run (');
  });

  it('colours only when given a paint, and never passes control characters through', () => {
    const k = check({ caseId: 'c', clauses: ['x.y'], verdict: 'fail', message: 'bad \u001b[31m thing' });
    expect(renderFailure(k).join('\n')).not.toContain('\u001b');
    expect(renderFailure(k).join('\n')).toContain('\\x1b[31m');
    expect(renderFailure(k, { paint: paint(true) })[0]).toContain('\u001b[31m');
  });
});
