/**
 * Runs tasks one after another. Checks that share zone state (the records that sort first, the one
 * custom log fields ruleset) would see each other's changes if they ran side by side.
 */
export function serialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
