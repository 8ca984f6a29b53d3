import type { FaultDef } from '../faults.ts';

export const s3Faults: FaultDef[] = [];
