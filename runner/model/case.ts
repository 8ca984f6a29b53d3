/** The shape of a case file after loading (schemas/case.schema.json is the source of truth). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface CaseDef {
  id: string;
  title: string;
  tags: string[];
  features: string[];
  profiles: ('quick' | 'full')[];
  readOnly: boolean;
  /** Shared target state the case changes: cases naming the same state never overlap. */
  exclusive: string[];
  /** What the case changes that cannot be put back: it runs only when the run allows it. */
  disruptive?: string;
  given: StepDef[];
  steps: StepDef[];
  /** file:line of the case, for messages. */
  origin: string;
  file: string;
  area: string;
}

export type AuthMode = 'default' | 'bearer' | 'legacy' | 'none' | 'wrong-bearer' | 'wrong-legacy';

export interface ApiRequest {
  method: string;
  path: string;
  query?: Record<string, Json>;
  headers?: Record<string, string>;
  body?: Json;
  rawBody?: string;
  auth?: AuthMode;
}

export interface HttpRequest {
  method: string;
  bucket?: string;
  key?: string;
  path?: string;
  query?: Record<string, Json>;
  headers?: Record<string, string>;
  body?: Json;
  sign?: 'header' | 'presign' | 'none' | 'bad-signature';
  payload?: 'unsigned' | 'signed';
  expires?: number;
  endpoint?: 's3' | 'public';
}

export interface WireRequest {
  endpoint: 'management' | 's3';
  method: string;
  path: string;
  headers: [string, string][];
  body?: string;
  auth?: AuthMode;
}

export type CaptureSpec =
  | string
  | { json: string }
  | { header: string }
  | { xml: string }
  | { output: string }
  | { status: true };

export interface StepDef {
  id?: string;
  title?: string;
  api?: ApiRequest;
  s3?: string;
  input?: Record<string, Json>;
  http?: HttpRequest;
  wire?: WireRequest;
  bucket?: string;
  capture?: Record<string, CaptureSpec>;
  expect?: CheckDef[];
  teardown?: StepDef;
  /** file:line of the step. */
  origin: string;
}

export interface CheckDef {
  clauses: string[];
  title?: string;
  status?: Json;
  headers?: Record<string, Json>;
  json?: Record<string, Json>;
  schema?: string;
  xml?: Record<string, Json>;
  body?: BodyExpect;
  output?: Record<string, Json>;
  error?: Json;
  origin: string;
}

export interface BodyExpect {
  equals?: string;
  contains?: string;
  size?: number | string;
  sha256?: string;
  md5?: string;
  empty?: boolean;
  generated?: { size: number | string; seed: number; range?: [number, number] };
}
