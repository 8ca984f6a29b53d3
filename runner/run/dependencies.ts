import type { CaseDef, StepDef } from '../model/case.ts';
import { describeResource, type Footprint, overlaps } from '../steps/footprint.ts';
import { stepKind } from '../steps/index.ts';
import { placeholdersIn } from '../template/resolve.ts';
import { expectsRefusal } from './outcome.ts';

/** An earlier step whose result a step reads: its captures, or the state it leaves. */
export interface Dependency {
  on: StepDef;
  /** Why, in words: `this step uses its capture etag`, `it writes s3 ${b}/k.txt, which this step reads`. */
  why: string;
}

/** What each step of a case waits on, and which earlier steps guard its checks as their valid twins. */
export interface CaseDependencies {
  of(step: StepDef): Dependency[];
  twins(step: StepDef): StepDef[];
  label(step: StepDef): string;
}

/** A dependency `needs` names: it blocks whenever the step did not pass, whatever its outcome. */
export const NAMED_IN_NEEDS = 'this step names it in needs';

const cache = new WeakMap<CaseDef, CaseDependencies>();

/**
 * A step depends on the case's given (always), on the earlier steps whose captures it or its
 * checks use, and on the earlier steps whose writes reach what it reads, back to the last write
 * that replaced that thing whole: what was written before it is no longer read. A write that
 * replaces a thing whole reads nothing of it (footprint.ts), unless a condition compares with it. A step
 * naming `needs` depends on those steps and its captures' only. A step's valid twins are not its
 * dependencies: their refusal guards its checks' passes instead (run-case.ts).
 */
export function caseDependencies(c: CaseDef): CaseDependencies {
  const known = cache.get(c);
  if (known) return known;
  const all = [...c.given, ...c.steps];
  const labels = new Map<StepDef, string>();
  for (const [i, s] of c.given.entries()) labels.set(s, s.id ?? `given[${i}]`);
  for (const [i, s] of c.steps.entries()) labels.set(s, s.id ?? `steps[${i}]`);
  const byId = new Map(all.filter((s) => s.id).map((s) => [s.id as string, s]));
  const deps = new Map<StepDef, Dependency[]>();
  const twins = new Map<StepDef, StepDef[]>();
  c.steps.forEach((step, i) => {
    const earlier = c.steps.slice(0, i);
    const mine = (step.twin ?? []).map((id) => byId.get(id)).filter((s) => s !== undefined);
    twins.set(step, mine);
    // Named in needs first: such a dependency blocks whenever it did not pass, whatever else it is.
    const named = (step.needs ?? []).flatMap((id) => {
      const on = byId.get(id);
      return on ? [{ on, why: NAMED_IN_NEEDS }] : [];
    });
    const found = [...named, ...captureProviders(step, [...c.given, ...earlier])];
    if (!step.needs) found.push(...stateWriters(step, earlier));
    const seen = new Set<StepDef>();
    deps.set(
      step,
      found.filter(
        (d) => c.steps.includes(d.on) && !mine.includes(d.on) && !seen.has(d.on) && seen.add(d.on),
      ),
    );
  });
  const out: CaseDependencies = {
    of: (step) => deps.get(step) ?? [],
    twins: (step) => twins.get(step) ?? [],
    label: (step) => labels.get(step) ?? step.origin,
  };
  cache.set(c, out);
  return out;
}

/** The latest earlier step capturing each name the step (its request or its checks) uses. */
function* captureProviders(step: StepDef, earlier: StepDef[]): Generator<Dependency> {
  const used = new Set(
    [...placeholdersIn(stepKind(step).sent(step)), ...placeholdersIn(step.expect ?? [])].map(
      (p) => p.name.split('.')[0],
    ),
  );
  for (const name of used) {
    const on = earlier.findLast((s) => s.capture && Object.hasOwn(s.capture, name));
    if (on) yield { on, why: `this step uses its capture ${name}` };
  }
}

/**
 * The earlier steps whose writes reach what `step` touches: walking back from it, every writer of
 * an overlapping resource, until a write that replaced the resource whole (or what holds it) and
 * was meant to succeed: a write meant to be refused leaves what was there before.
 */
function stateWriters(step: StepDef, earlier: StepDef[]): Dependency[] {
  const mine = footprintOf(step);
  const out: Dependency[] = [];
  for (const r of mine.reads) {
    for (let j = earlier.length - 1; j >= 0; j--) {
      const e = earlier[j];
      const fp = footprintOf(e);
      const reach = fp.writes.find((w) => overlaps(w, r));
      if (!reach) continue;
      out.push({ on: e, why: `it writes ${describeResource(reach)}, which this step reads` });
      const replaced = fp.replaces.some((w) => w.length <= r.length && overlaps(w, r));
      if (replaced && !(e.expect ?? []).some(expectsRefusal)) break;
    }
  }
  return out;
}

const footprints = new WeakMap<StepDef, Footprint>();
function footprintOf(step: StepDef): Footprint {
  let fp = footprints.get(step);
  if (!fp) {
    fp = stepKind(step).footprint(step);
    footprints.set(step, fp);
  }
  return fp;
}

/** What one step's checks wait on, in words, for `edgecheck lint --waits`. */
export interface StepWaits {
  step: string;
  origin: string;
  checks: number;
  /** `the given (3 steps)`, then `step put (it writes s3 ${b}/k.txt, which this step reads)`. */
  waits: string[];
  /** The valid twins whose refusal blocks a pass of its checks. */
  twins: string[];
}

/** Every step of a case that holds checks, with what they wait on. */
export function caseWaits(c: CaseDef): StepWaits[] {
  const deps = caseDependencies(c);
  const given = c.given.length ? [`the given (${c.given.length} step${c.given.length > 1 ? 's' : ''})`] : [];
  const out: StepWaits[] = [];
  for (const step of [...c.given, ...c.steps]) {
    if (!step.expect?.length) continue;
    const inGiven = c.given.includes(step);
    const earlierGiven = inGiven ? c.given.slice(0, c.given.indexOf(step)).length : c.given.length;
    out.push({
      step: deps.label(step),
      origin: step.origin,
      checks: step.expect.length,
      waits: [
        ...(inGiven
          ? earlierGiven
            ? [`the given before it (${earlierGiven} step${earlierGiven > 1 ? 's' : ''})`]
            : []
          : given),
        ...deps.of(step).map((d) => `step ${deps.label(d.on)} (${d.why})`),
      ],
      twins: deps.twins(step).map((t) => deps.label(t)),
    });
  }
  return out;
}
