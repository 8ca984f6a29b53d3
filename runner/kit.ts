/**
 * The property kit (`edgecheck/kit`): everything a generative check under
 * suites/<area>/properties/ may import from edgecheck. Suites import nothing else of the package,
 * so a suites folder kept anywhere (`edgecheck run --suites-dir DIR`) loads against this
 * installation. Only what properties need is exported; the engine stays free to change behind it.
 */

// The generator and shrinker properties are written with: one copy, the runner's, whose seeds
// and run counts arrive in ctx.fc.
export { default as fc } from 'fast-check';
// S3 answers are XML; properties parse them with the parser the runner uses.
export { XMLParser } from 'fast-xml-parser';
// Bodies from the runner's seekable generator (any range of a seed's bytes, reproducibly), and
// the JSON Schemas of schemas/ by file name.
export { generateBuffer, generateChunks, generatedDigest } from './data/generate.ts';
// What a property is, what it is given, and what it talks to.
export type { BindingCall, HttpRequest } from './model/case.ts';
export type {
  ObservedView,
  Observer,
  PropertyContext,
  PropertyDef,
  WireResponse,
} from './model/property.ts';
// The exchange a property's failure cites: an error it throws may carry one as `exchange`.
export type { Exchange } from './model/results.ts';
export type { S3Target, Target } from './model/target.ts';
// How a refused CreateBucket is worded, so that the run's advice finds it wherever it happened.
export { bucketRefused } from './results/advice.ts';
export { schemas } from './schema/registry.ts';
// A generated body ctx.http streams, as a case's $generate is: a multi-MiB part is never held whole.
export { generatedBody } from './template/resolve.ts';
// Raw S3 requests a property varies itself (addressing, region, headers, signing date), built here
// and sent through ctx.send, paced and retried as the run's own requests are.
export { buildS3Request } from './transports/s3-raw.ts';
export { signerFor } from './transports/sigv4.ts';
// What an observer remembers between exchanges (PropertyDef.observe), bounded.
export { RecentMap } from './util/recent-map.ts';
// Whether an observed text carries the secret registered with a label, or the mask a recording put
// in its place: an observer of echoed secrets judges a recording as it judges the traffic.
export { carriesSecret, SECRET_ACCESS_KEY } from './util/redact.ts';
// The SigV4 signature an observed request carries (scope, dates), read alike as it passed and as a
// recording keeps it.
export { type Signing, signingOf } from './util/sigv4-form.ts';
// XML's entities and character references in one pass, which the parser leaves to its caller.
export { decodeXmlEntities } from './util/xml.ts';
