/**
 * The diff engine's one entry (`edgecheck diff`): sequences generated from a model, sent to two
 * targets in lockstep and compared. It shares the model, transports and matchers with the run
 * engine and imports nothing of it.
 */
export { dnsModel } from './dns-model.ts';
export { rulesetModel } from './ruleset-model.ts';
export {
  type DiffModel,
  type DiffOptions,
  type DiffReport,
  type DiffSide,
  type Finding,
  type KnownDifference,
  runDiff,
} from './run-diff.ts';
export { s3Model } from './s3-model.ts';
