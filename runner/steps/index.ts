import type { StepDef, StepKind as StepKindName } from '../model/case.ts';
import type { StepFormatType } from '../model/case-format.ts';
import type { Target } from '../model/target.ts';
import type { Scope } from '../template/resolve.ts';
import { InputError } from '../util/errors.ts';
import { apiStep } from './api.ts';
import { bindingStep } from './binding.ts';
import { bucketStep } from './bucket.ts';
import type { RunContext } from './context.ts';
import { httpStep } from './http.ts';
import type { Described, Performed, StepCommonPart, StepKind, StepOwner } from './kind.ts';
import { s3Step } from './s3.ts';
import type { TeardownLedger } from './teardown.ts';
import { wireStep } from './wire.ts';

export type { Described, Performed, StepOwner } from './kind.ts';

/**
 * Every step kind, by the key a case file names it with. The type makes it exhaustive: a kind in
 * runner/model/case-format.ts's STEP_KINDS without a module here does not compile.
 */
export const STEPS: { [K in StepKindName]: StepKind<Extract<StepDef, { kind: K }>> } = {
  api: apiStep,
  s3: s3Step,
  http: httpStep,
  bucket: bucketStep,
  wire: wireStep,
  binding: bindingStep,
};

/** The module of a step's kind; a step built by hand with no known kind is named where it stands. */
export function stepKind<S extends StepDef>(step: S): StepKind<S> {
  const kind = STEPS[step.kind as StepKindName] as unknown as StepKind<S> | undefined;
  if (!kind) throw new InputError(step.origin, `step of unknown kind '${String(step.kind)}'`);
  return kind;
}

/** The step as the engine sees it, from the step as written (exactly one kind's key, as the schema holds). */
export function loadStep(raw: StepFormatType, common: StepCommonPart): StepDef {
  const kind = (Object.keys(STEPS) as StepKindName[]).find((k) => raw[k] !== undefined);
  if (!kind)
    throw new InputError(common.origin, `a step needs exactly one of ${Object.keys(STEPS).join(', ')}`);
  return STEPS[kind].load(raw, common);
}

/** Resolves a step's placeholders and sends it. Throws MissingValue, TargetLacks or TargetError. */
export function performStep(
  step: StepDef,
  scope: Scope,
  ctx: RunContext,
  owner: StepOwner,
  ledger: TeardownLedger,
): Promise<Performed> {
  return stepKind(step).perform(step, scope, ctx, owner, ledger);
}

/** A teardown step in words and as a command, and how to confirm that a delete took. */
export function describeStep(step: StepDef, scope: Scope, ctx: RunContext, caseId: string): Described {
  try {
    const described = stepKind(step).describe?.(step, scope, ctx, caseId);
    if (described) return described;
  } catch {
    // A placeholder with no value: the teardown itself will say so when it runs.
  }
  return { what: `the teardown step at ${step.origin}` };
}

/** Why a case with these steps cannot run on `target`, or undefined: the first kind's reason, in the table's order. */
export function stepsNeed(steps: StepDef[], target: Target): string | undefined {
  for (const kind of Object.keys(STEPS) as StepKindName[]) {
    const step = steps.find((s) => s.kind === kind);
    const why = step && stepKind(step).needs(target, steps);
    if (why) return why;
  }
  return undefined;
}
