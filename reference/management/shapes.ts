/** Shapes the store and its seeds share; apart from store.ts, which imports the seeds. */
export type Json = Record<string, unknown>;

export interface Zone {
  id: string;
  name: string;
  accountId: string;
  createdOn: string;
}
