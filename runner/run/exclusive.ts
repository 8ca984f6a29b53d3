/**
 * Named locks for shared target state (a zone setting, a zone's one ruleset per phase):
 * work naming the same state runs one at a time, the rest of the run stays parallel.
 * Names are taken in sorted order, so two holders of overlapping sets cannot deadlock.
 */
export class ExclusiveLocks {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(names: readonly string[], work: () => Promise<T>): Promise<T> {
    const releases: (() => void)[] = [];
    for (const name of [...new Set(names)].sort()) {
      const prior = this.tails.get(name) ?? Promise.resolve();
      let release!: () => void;
      const mine = new Promise<void>((resolve) => {
        release = resolve;
      });
      this.tails.set(
        name,
        prior.then(() => mine),
      );
      await prior;
      releases.push(release);
    }
    try {
      return await work();
    } finally {
      for (const release of releases) release();
    }
  }
}
