/**
 * The sweep engine's one entry (`edgecheck sweep`): finds what runs left on a target by the run id
 * in its names, and removes it. It shares the model and transports with the run engine and
 * imports nothing of it.
 */
export {
  describeLeftover,
  KIND_LABEL,
  type Kind,
  type Leftover,
  type SweepOptions,
  type SweepReport,
  sweep,
} from './sweep.ts';
