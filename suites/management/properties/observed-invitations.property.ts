import { type PropertyDef, RecentMap } from 'edgecheck/kit';
import { violation } from './support/envelope.ts';
import { sentJson, succeeded } from './support/observed.ts';

/*
 * An invitation accepted stays accepted (SPEC shows no transition out of accepted), as traffic shows
 * it: the invitation a PATCH accepting it answers, where it answers one, and a read of it that began
 * after that PATCH was answered. The case (invitations.case.yaml) checks both in a run; this only
 * observes.
 */

const INVITE = /^\/client\/v4\/user\/invites\/([^/]+)$/;

/** The invitations remembered accepted. */
const KEPT = 1_000;

/**
 * The invitation answered has status accepted. SPEC shows the PATCH answering only an envelope: an
 * answer holding no invitation status says nothing, unless it is a read (`read`), which must.
 */
function stillAccepted(result: unknown, where: string, read = false): boolean | undefined {
  const status = (result as { status?: unknown } | null)?.status;
  if (status === undefined && !read) return undefined;
  if (status !== 'accepted') violation(`${where} answered status ${JSON.stringify(status)}`);
  return true;
}

const acceptedState: PropertyDef = {
  id: 'mgmt.invites.accepted-state-observed',
  title: 'An invitation read after a PATCH accepted it has status accepted',
  clauses: ['mgmt.invites.accepted-state'],
  observe: {
    selects:
      'PATCHes of an invitation with status accepted answered 2xx, and GETs of it answered 2xx begun after such a PATCH was answered',
    observer: () => {
      /** When each invitation's acceptance was answered. */
      const accepted = new RecentMap<string, number>(KEPT);
      return (ex) => {
        const id = ex.door === 'management' ? INVITE.exec(ex.path)?.[1] : undefined;
        if (id === undefined) return undefined;
        if (ex.method === 'PATCH') {
          const status = sentJson(ex)?.status;
          const env = status === undefined ? undefined : succeeded(ex);
          if (!env) return undefined;
          // Another status accepted later: what the invitation holds is no longer known.
          if (status !== 'accepted') return void accepted.delete(id);
          if (ex.answeredAt !== undefined) accepted.set(id, ex.answeredAt);
          return stillAccepted(env.result, `PATCH ${ex.path} accepting the invitation`);
        }
        const since = accepted.get(id);
        if (ex.method !== 'GET' || since === undefined || ex.startedAt === undefined || ex.startedAt < since)
          return undefined;
        const env = succeeded(ex);
        return env && stillAccepted(env.result, `GET ${ex.path} after a PATCH accepted the invitation`, true);
      };
    },
  },
};

export default [acceptedState] satisfies PropertyDef[];
