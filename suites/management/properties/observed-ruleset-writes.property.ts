import type { ObservedView, Observer, PropertyDef } from 'edgecheck/kit';
import { violation } from './support/envelope.ts';
import { sentJson, succeeded } from './support/observed.ts';

/*
 * A ruleset created answers the name, kind, phase and description sent, and a PUT of a ruleset
 * answers exactly the rules sent, as traffic shows it: each write against its own request. The
 * cases (rulesets.case.yaml: lifecycle's create and put steps, account-level's for the account
 * paths) check the same in a run; these only observe.
 */

type Json = Record<string, unknown>;
type Scope = 'zones' | 'accounts';

const collection = (scope: Scope) => new RegExp(`^/client/v4/${scope}/[^/]+/rulesets$`);
/** One ruleset; a phase's entry point is mgmt.rulesets.entrypoint's. */
const one = (scope: Scope) => new RegExp(`^/client/v4/${scope}/[^/]+/rulesets/(?!phases$)[^/]+$`);

/** The JSON object sent and the ruleset a successful write of `method` to `path` answered. */
function rulesetWrite(ex: ObservedView, method: string, path: RegExp): { sent: Json; rs: Json } | undefined {
  if (ex.door !== 'management' || ex.method !== method || !path.test(ex.path)) return undefined;
  const sent = sentJson(ex);
  const rs = sent && succeeded(ex)?.result;
  return sent && rs && typeof rs === 'object' && !Array.isArray(rs) ? { sent, rs: rs as Json } : undefined;
}

const CREATED = ['name', 'kind', 'phase', 'description'];

/** POST rulesets under `scope`: a non-empty id, and each of CREATED sent answered as sent. */
function createObserver(scope: Scope): Observer {
  const path = collection(scope);
  return (ex) => {
    const write = rulesetWrite(ex, 'POST', path);
    if (!write) return undefined;
    const where = `POST ${ex.path}`;
    if (typeof write.rs.id !== 'string' || write.rs.id === '')
      violation(`${where} answered id ${JSON.stringify(write.rs.id)}`);
    for (const field of CREATED.filter((f) => f in write.sent))
      if (write.rs[field] !== write.sent[field])
        violation(
          `${where} sent ${field} ${JSON.stringify(write.sent[field])} but answered ${JSON.stringify(write.rs[field])}`,
        );
    return true;
  };
}

/** Fields of a rule answered as sent; enabled and action_parameters are other clauses' (rules.enabled, the lcf rows). */
const RULE_FIELDS = ['action', 'expression', 'description'];

/** PUT of a ruleset under `scope`: as many rules answered as sent, each with the fields it was sent. */
function putObserver(scope: Scope): Observer {
  const path = one(scope);
  return (ex) => {
    const write = rulesetWrite(ex, 'PUT', path);
    const sent = write?.sent.rules;
    if (!write || !Array.isArray(sent)) return undefined;
    const where = `PUT ${ex.path}`;
    const rules = write.rs.rules;
    const answered = Array.isArray(rules) ? rules : [];
    if (answered.length !== sent.length)
      violation(`${where} sent ${sent.length} rule(s) but answered ${answered.length}`);
    sent.forEach((rule: Json, i: number) => {
      const got = (answered[i] ?? {}) as Json;
      for (const field of RULE_FIELDS.filter((f) => rule && f in rule))
        if (got[field] !== rule[field])
          violation(
            `${where} sent rule ${i} ${field} ${JSON.stringify(rule[field])} but answered ${JSON.stringify(got[field])}`,
          );
    });
    return true;
  };
}

const create: PropertyDef = {
  id: 'mgmt.rulesets.create-observed',
  title: 'A zone ruleset created answers an id and the name, kind, phase and description sent',
  clauses: ['mgmt.rulesets.create'],
  observe: {
    selects: 'POSTs of zone rulesets with a JSON body answered 2xx with a ruleset',
    observer: () => createObserver('zones'),
  },
};

const putReplaces: PropertyDef = {
  id: 'mgmt.rulesets.put-replaces-observed',
  title: 'A PUT of a zone ruleset answers exactly the rules sent, in number and in the fields sent',
  clauses: ['mgmt.rulesets.put-replaces'],
  observe: {
    selects: 'PUTs of a zone ruleset with rules answered 2xx with a ruleset',
    observer: () => putObserver('zones'),
  },
};

const account: PropertyDef = {
  id: 'mgmt.rulesets.account-observed',
  title: 'An account ruleset created or replaced answers what was sent, as a zone ruleset does',
  clauses: ['mgmt.rulesets.account'],
  observe: {
    selects:
      'POSTs of account rulesets and PUTs of an account ruleset, with a JSON body, answered 2xx with a ruleset',
    observer: () => {
      const created = createObserver('accounts');
      const put = putObserver('accounts');
      return (ex) => created(ex) ?? put(ex);
    },
  },
};

export default [create, putReplaces, account] satisfies PropertyDef[];
