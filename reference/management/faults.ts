import type { FaultDef } from '../faults.ts';

export const managementFaults: FaultDef[] = [];
