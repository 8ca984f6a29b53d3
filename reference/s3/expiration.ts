import type { ReferenceContext } from '../context.ts';
import type { BucketRecord } from './store.ts';
import { asArray, text } from './xml.ts';

const DAY_MS = 86_400_000;

type Node = Record<string, unknown> | undefined;

/**
 * The key prefix a lifecycle rule's filter names (Filter/Prefix, Filter/And/Prefix or the legacy
 * Prefix), or undefined for a filter the reference cannot match (object tags, object sizes): such a
 * rule is taken to cover no object, since the reference keeps no tags.
 */
function rulePrefix(rule: Record<string, unknown>): string | undefined {
  const filter = rule.Filter as Node;
  if (!filter || typeof filter !== 'object') return text(rule.Prefix) ?? '';
  const and = filter.And as Node;
  const scope = and && typeof and === 'object' ? and : filter;
  const other = Object.keys(scope).filter((k) => k !== 'Prefix' && k !== '#text');
  if (other.length > 0) return undefined;
  return text(scope.Prefix) ?? '';
}

/**
 * x-amz-expiration, as Amazon S3 answers it on PutObject, GetObject and HeadObject of an object an
 * enabled Expiration rule of its bucket covers: `expiry-date="<HTTP date>", rule-id="<id>"`. The
 * expiry date of a rule in Days is the object's creation time plus the days, rounded up to the next
 * midnight UTC; a rule with a Date expires the object then. Where several rules cover the object, the
 * earliest expiry is answered. The rule id is URL-encoded.
 *
 * Under faults: the days are added without rounding; a rule's prefix is not looked at; a Disabled rule
 * counts too (each asked only where it changes the answer).
 */
export function expirationHeaders(
  bucket: BucketRecord,
  key: string,
  created: Date,
  ctx: ReferenceContext,
): Record<string, string> {
  const root = bucket.lifecycle as Node;
  if (!root || typeof root !== 'object') return {};
  const f = ctx.faults;
  let earliest: { at: Date; id: string } | undefined;
  for (const rule of asArray(root.Rule as Record<string, unknown> | Record<string, unknown>[])) {
    if (!rule || typeof rule !== 'object') continue;
    const expiration = rule.Expiration as Node;
    if (!expiration || typeof expiration !== 'object') continue;
    if (text(rule.Status)?.trim() !== 'Enabled' && !f.has('s3-expiration-disabled-rule-applied')) continue;
    const prefix = rulePrefix(rule);
    if (prefix === undefined) continue;
    if (!key.startsWith(prefix) && !f.has('s3-expiration-prefix-ignored')) continue;
    const days = text(expiration.Days)?.trim();
    const date = text(expiration.Date)?.trim();
    let at: Date | undefined;
    if (days && /^\d+$/.test(days)) {
      const exact = created.getTime() + Number(days) * DAY_MS;
      at = new Date(
        exact % DAY_MS !== 0 && f.has('s3-expiration-not-rounded')
          ? exact
          : Math.ceil(exact / DAY_MS) * DAY_MS,
      );
    } else if (date && !Number.isNaN(Date.parse(date))) {
      at = new Date(date);
    }
    if (!at) continue;
    if (!earliest || at < earliest.at) earliest = { at, id: text(rule.ID)?.trim() ?? '' };
  }
  if (!earliest) return {};
  return {
    'x-amz-expiration': `expiry-date="${earliest.at.toUTCString()}", rule-id="${encodeURIComponent(earliest.id)}"`,
  };
}
