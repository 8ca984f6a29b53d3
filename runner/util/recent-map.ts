/**
 * A Map that keeps only its `limit` most recently set keys: what an observer remembers between
 * exchanges stays bounded however long the traffic it judges.
 */
export class RecentMap<K, V> extends Map<K, V> {
  constructor(private readonly limit = 10_000) {
    super();
  }

  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    if (this.size > this.limit) super.delete(this.keys().next().value as K);
    return this;
  }
}
