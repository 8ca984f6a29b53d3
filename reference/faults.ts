import type { ActiveFaults, FaultDef } from './fault-def.ts';
import { managementFaults } from './management/faults.ts';
import { s3Faults } from './s3/faults.ts';

export type { FaultDef };

export const FAULTS: readonly FaultDef[] = [...managementFaults, ...s3Faults];

export class UnknownFaultError extends Error {}

/** The faults switched on for one server. Checking a fault is a Set lookup: cheap on hot paths. */
export class FaultSet implements ActiveFaults {
  private readonly on: Set<string>;

  constructor(names: Iterable<string> = []) {
    this.on = new Set(names);
    for (const name of this.on) {
      if (!FAULTS.some((f) => f.name === name)) {
        throw new UnknownFaultError(
          `unknown fault '${name}': run 'edgecheck serve --list-faults' for the list`,
        );
      }
    }
  }

  has(name: string): boolean {
    return this.on.has(name);
  }

  get names(): string[] {
    return [...this.on];
  }
}
