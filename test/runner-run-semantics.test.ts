import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdgecheck } from '../runner/api.ts';
import { listAreas } from '../runner/load/clauses.ts';
import { loadSuites } from '../runner/load/suite.ts';
import { clauseApplies } from '../runner/model/clause.ts';
import type { RunResults } from '../runner/model/results.ts';
import { worst } from '../runner/model/verdict.ts';
import { type Selection, selectWork } from '../runner/run/select.ts';
import { failure, ok, sendJson, startServer, type TestServer } from './helpers/engine-server.ts';
import { fixtureDir, managementTarget } from './helpers/engine-target.ts';

const SUITES = fixtureDir('semantics');
const SEED = 424242;

let server: TestServer;
let onDate: RunResults; // as-of the end-of-life date itself: the new behaviour applies
let dayBefore: RunResults;

beforeAll(async () => {
  server = await startServer((req, res) => {
    const path = req.url.split('?')[0];
    if (path === '/client/v4/zones/z1') {
      res.setHeader('etag', '"v1"');
      return sendJson(res, 200, ok({ id: 'z1', name: 'example.com', status: 'pending' }));
    }
    if (path === '/client/v4/garbage') return void res.end('<html/>');
    if (req.method === 'DELETE') return sendJson(res, 200, ok({}));
    sendJson(res, 404, failure(7003, 'no route'));
  });
  const target = managementTarget(server.url);
  onDate = await runEdgecheck({ suitesDir: SUITES, target, asOf: '2024-06-01', seed: SEED });
  dayBefore = await runEdgecheck({
    suitesDir: SUITES,
    target,
    asOf: '2024-05-31',
    seed: SEED,
    cases: ['sem.dated.*'],
  });
}, 20_000);

afterAll(async () => {
  await server?.close();
});

const clause = (r: RunResults, id: string) => r.clauses.find((c) => c.id === id);
const kase = (r: RunResults, id: string) => r.cases.find((c) => c.id === id)!;

describe('date windows', () => {
  it('until D means as-of < D, since D means as-of >= D: on D itself the new behaviour applies', () => {
    expect(clauseApplies({ until: '2024-06-01' }, '2024-05-31')).toBe(true);
    expect(clauseApplies({ until: '2024-06-01' }, '2024-06-01')).toBe(false);
    expect(clauseApplies({ since: '2024-06-01' }, '2024-05-31')).toBe(false);
    expect(clauseApplies({ since: '2024-06-01' }, '2024-06-01')).toBe(true);
    expect(clauseApplies({}, '1999-01-01')).toBe(true);
  });

  it('a check citing the old and the new clause is judged on both sides of the date', () => {
    expect(kase(onDate, 'sem.dated.both').checks[0].verdict).toBe('pass');
    expect(kase(dayBefore, 'sem.dated.both').checks[0].verdict).toBe('pass');
  });

  it('the clause out of its window is reported skipped even where a check judged it', () => {
    expect(clause(onDate, 'mgmt.sem.old')?.verdict).toBe('skipped');
    expect(clause(onDate, 'mgmt.sem.new')?.verdict).toBe('pass');
    expect(clause(dayBefore, 'mgmt.sem.old')?.verdict).toBe('pass');
    expect(clause(dayBefore, 'mgmt.sem.new')?.verdict).toBe('skipped');
  });

  it('a check citing only the retired clause is skipped on the date, judged the day before', () => {
    expect(kase(onDate, 'sem.dated.old').checks[0]).toMatchObject({
      verdict: 'skipped',
      message: 'mgmt.sem.old applies before 2024-06-01 (as-of 2024-06-01)',
    });
    expect(kase(dayBefore, 'sem.dated.old').checks[0].verdict).toBe('pass');
  });
});

describe('captures', () => {
  it('values captured from the body, a header and the status resolve in later requests and checks', () => {
    expect(kase(onDate, 'sem.capture').checks[0]).toMatchObject({ verdict: 'pass', step: 'second' });
    expect(server.seen.some((r) => r.url === '/client/v4/zones/z1?from=example.com')).toBe(true);
  });

  it('a step using a value the answer did not have is blocked, naming the placeholder', () => {
    const c = kase(onDate, 'sem.capture');
    expect(c.checks[1]).toMatchObject({
      verdict: 'blocked',
      step: 'third',
      message:
        'step third could not run: no value for ${missing} (capture: the answer has nothing at "/result/nope")',
    });
    expect(c.verdict).toBe('blocked');
  });
});

describe('the worst verdict wins', () => {
  it('a case with a passing and a failing check fails; so does a clause also passed elsewhere', () => {
    const one = kase(onDate, 'sem.mixed.one');
    expect(one.checks.map((k) => k.verdict)).toEqual(['pass', 'fail']);
    expect(one.verdict).toBe('fail');
    expect(kase(onDate, 'sem.mixed.two').verdict).toBe('pass');
    expect(clause(onDate, 'mgmt.sem.mixed')).toMatchObject({
      verdict: 'fail',
      checks: 3,
      message: 'sem.mixed.one (steps[0]): json at /result/status: expected "active", found "pending"',
    });
  });

  it('orders fail > error > blocked > pass > skipped > untested', () => {
    expect(worst(['pass', 'skipped', 'blocked'], 'skipped')).toBe('blocked');
    expect(worst(['blocked', 'error'], 'skipped')).toBe('error');
    expect(worst(['error', 'fail', 'pass'], 'skipped')).toBe('fail');
    expect(worst(['skipped'], 'untested')).toBe('skipped');
    expect(worst([], 'untested')).toBe('untested');
  });
});

describe('properties', () => {
  it('a property that holds passes, and what it deferred runs at the end', () => {
    expect(kase(onDate, 'sem.prop.pass').verdict).toBe('pass');
    const reads = server.seen.filter((r) => r.url.startsWith('/client/v4/zones/z1?n='));
    const del = server.seen.findIndex(
      (r) => r.method === 'DELETE' && r.url === '/client/v4/things/from-property',
    );
    expect(reads.length).toBeGreaterThanOrEqual(1);
    expect(del).toBeGreaterThan(server.seen.indexOf(reads[reads.length - 1]));
  });

  it('a counterexample fails the property, with the shrunk value and the seed to replay', () => {
    const k = kase(onDate, 'sem.prop.fail').checks[0];
    expect(k.verdict).toBe('fail');
    expect(k.message).toContain('Counterexample: [50]');
    expect(k.message).toMatch(new RegExp(`\\(replay: --seed ${SEED}\\)$`));
    expect(clause(onDate, 'mgmt.sem.prop-fail')?.verdict).toBe('fail');
  });

  it('an answer the property cannot judge is an error with the reason and seed', () => {
    const k = kase(onDate, 'sem.prop.error').checks[0];
    expect(k).toMatchObject({ verdict: 'error', message: `the zone answer is not JSON (seed ${SEED})` });
  });

  it('a property needing a feature the target lacks is skipped without running', () => {
    expect(kase(onDate, 'sem.prop.feature').checks[0]).toMatchObject({
      verdict: 'skipped',
      message: 'the target does not offer worker-bindings',
    });
  });
});

describe('selection', () => {
  it('case ids match exactly or by prefix*, and only the clauses they cite are reported', async () => {
    const loaded = await loadSuites(listAreas(SUITES), listAreas(SUITES), SUITES);
    const byPrefix = selectWork(loaded, { cases: ['sem.mixed.*'] });
    expect(byPrefix.cases.map((c) => c.id)).toEqual(['sem.mixed.one', 'sem.mixed.two']);
    expect(byPrefix.properties).toEqual([]);
    expect(byPrefix.clauses.map((c) => c.id)).toEqual(['mgmt.sem.mixed']);
    expect(selectWork(loaded, { cases: ['sem.mixed.one'] }).cases.map((c) => c.id)).toEqual([
      'sem.mixed.one',
    ]);
    // Without the trailing '*' an id is not a prefix.
    expect(() => selectWork(loaded, { cases: ['sem.mixed'] })).toThrow('nothing matches the filters');
  });

  it('a clause filter selects the cases and properties citing it', async () => {
    const loaded = await loadSuites(['mgmt'], ['mgmt'], SUITES);
    const w = selectWork(loaded, { clauses: ['mgmt.sem.prop-*'] });
    expect(w.cases).toEqual([]);
    expect(w.properties.map((p) => p.def.id)).toEqual([
      'sem.prop.pass',
      'sem.prop.fail',
      'sem.prop.error',
      'sem.prop.feature',
    ]);
    const dated = selectWork(loaded, { clauses: ['mgmt.sem.new'] });
    expect(dated.cases.map((c) => c.id)).toEqual(['sem.dated.both']);
    expect(dated.clauses.map((c) => c.id)).toEqual(['mgmt.sem.new']);
  });

  it('filters that match nothing are an input error naming the filters', async () => {
    const loaded = await loadSuites(['mgmt'], ['mgmt'], SUITES);
    expect(() => selectWork(loaded, { cases: ['nothing.*'] })).toThrow(
      '--case/--clause/--tag: nothing matches the filters',
    );
    expect(() => selectWork(loaded, { shard: '3/2' })).toThrow('--shard 3/2: write i/n with 1 <= i <= n');
  });

  it('shards split the cases without overlap', async () => {
    const loaded = await loadSuites(['mgmt'], ['mgmt'], SUITES);
    const ids = (s: string) => selectWork(loaded, { shard: s }).cases.map((c) => c.id);
    const [a, b] = [ids('1/2'), ids('2/2')];
    expect([...a, ...b].sort()).toEqual(loaded.cases.map((c) => c.id).sort());
    expect(a.filter((id) => b.includes(id))).toEqual([]);
  });

  it('a shard reports the clauses of the whole selection, and may be empty', async () => {
    const loaded = await loadSuites(['mgmt'], ['mgmt'], SUITES);
    const clauses = (sel: Selection) => selectWork(loaded, sel).clauses.map((c) => c.id);
    expect(clauses({ shard: '1/2' })).toEqual(clauses({}));
    expect(clauses({ shard: '2/3', cases: ['sem.dated.*'] })).toEqual(clauses({ cases: ['sem.dated.*'] }));
    const empty = selectWork(loaded, { shard: '999/999' });
    expect(empty.cases.length + empty.properties.length).toBe(0);
    expect(empty.clauses.map((c) => c.id)).toEqual(clauses({}));
  });
});
