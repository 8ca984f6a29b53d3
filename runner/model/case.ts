/**
 * A case after loading. The shapes written in YAML come from the one definition of the format,
 * runner/model/case-format.ts; the loader adds where each thing was written (`origin`),
 * defaults, and a step's `kind`.
 */
import type { Static } from '@sinclair/typebox';
import type {
  AmazonFormat,
  ApiRequestFormat,
  BindingCallFormat,
  BodyExpectFormat,
  CaptureFormat,
  CaseFormatType,
  CheckFormat,
  HttpRequestFormat,
  StepFormatType,
  StepKind,
  WireRequestFormat,
} from './case-format.ts';

export type { AuthMode, Json, StepKind } from './case-format.ts';
export { STEP_KINDS } from './case-format.ts';

export type ApiRequest = Static<typeof ApiRequestFormat>;
export type HttpRequest = Static<typeof HttpRequestFormat>;
export type WireRequest = Static<typeof WireRequestFormat>;
export type BindingCall = Static<typeof BindingCallFormat>;
export type CaptureSpec = Static<typeof CaptureFormat>;
export type BodyExpect = Static<typeof BodyExpectFormat>;
/** What Amazon S3 does where SPEC departs from it: a clause's `amazon`. */
export type AmazonBehaviour = Static<typeof AmazonFormat>;

export interface CaseDef
  extends Required<Omit<CaseFormatType, 'disruptive' | 'given' | 'fileGiven' | 'steps'>> {
  /** What the case changes that cannot be put back: it runs only when the run allows it. */
  disruptive?: string;
  /** The file's given (unless the case opts out), then the case's own, `use` entries expanded. */
  given: StepDef[];
  steps: StepDef[];
  /** file:line of the case, for messages. */
  origin: string;
  file: string;
  area: string;
}

interface StepCommon
  extends Pick<StepFormatType, 'id' | 'title' | 'capture' | 'prerequisite' | 'needs' | 'twin' | 'pauseMs'> {
  expect?: CheckDef[];
  /** Run in this order at the end of the case (the loader makes a single step a list of one). */
  teardown?: StepDef[];
  /** file:line of the step. */
  origin: string;
}

/** One kind of step: its `kind`, its kind's key (required), and the keys that go with it. */
type Kinded<K extends StepKind, With extends keyof StepFormatType = never> = StepCommon & {
  kind: K;
} & Required<Pick<StepFormatType, K>> &
  Pick<StepFormatType, With>;

/** A step as the engine sees it: exactly one kind, told apart by `kind`. */
export type StepDef =
  | Kinded<'api'>
  | Kinded<'s3', 'input'>
  | Kinded<'http'>
  | Kinded<'wire'>
  | Kinded<'binding'>
  | Kinded<'bucket'>;

export interface CheckDef extends Static<typeof CheckFormat> {
  origin: string;
}
