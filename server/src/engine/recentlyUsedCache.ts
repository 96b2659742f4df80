/**
 * The one cache of the language server's results, in the spirit of VS Code json-language-features'
 * languageModelCache: each value is kept under a key (a document's URI, a rollout's folder) with the
 * version it was made from, and is answered only for that version; the least recently used entries go
 * first when there are more than the bound, except pinned keys (a rollout with an open document), which
 * stay until deleted.
 */

export interface RecentlyUsedCacheOptions<Value> {
  /** How many entries are kept besides the pinned ones; unbounded when the owner deletes entries itself. */
  readonly maxEntries: number;
  /** Keys never evicted for room, asked at each eviction; none by default. */
  readonly isPinned?: (key: string) => boolean;
  /** An entry was evicted for room (not deleted, replaced or cleared): what was kept with it can go too. */
  readonly onEvict?: (key: string, value: Value) => void;
}

/** `Version`: what a value was made from; equal versions, equal values. */
export class RecentlyUsedCache<Value, Version extends string | number = string | number> {
  /** A Map iterates in insertion order, so re-inserting an entry on use keeps the least recently used first. */
  private readonly entries = new Map<string, { readonly version: Version; readonly value: Value }>();

  constructor(private readonly options: RecentlyUsedCacheOptions<Value>) {}

  /** The value kept for this very version of `key`, now the most recently used; undefined for another version. */
  get(key: string, version: Version): Value | undefined {
    const entry = this.entries.get(key);
    if (entry?.version !== version) return undefined;
    this.touch(key, entry);
    return entry.value;
  }

  /** Whatever version of `key` is kept, without counting as a use: what an incremental update starts from. */
  latest(key: string): { readonly version: Version; readonly value: Value } | undefined {
    return this.entries.get(key);
  }

  /** Keeps `value` as the version of `key`, the most recently used, and evicts what no longer fits. */
  set(key: string, version: Version, value: Value): void {
    this.touch(key, { version, value });
    this.evictForRoom();
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Deletes every entry whose key `doomed` accepts (a rollout's files, the folders no longer listed). */
  deleteWhere(doomed: (key: string) => boolean): void {
    for (const key of [...this.entries.keys()]) if (doomed(key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private touch(key: string, entry: { readonly version: Version; readonly value: Value }): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  private evictForRoom(): void {
    const { maxEntries, isPinned, onEvict } = this.options;
    if (this.entries.size <= maxEntries) return;
    // Pinned entries do not count against the bound; without any, no key needs asking about.
    let excess =
      (isPinned ? [...this.entries.keys()].filter((key) => !isPinned(key)).length : this.entries.size) - maxEntries;
    // Deleting the entry a Map iteration is at is safe: the iteration goes on with the next.
    for (const [key, entry] of this.entries) {
      if (excess <= 0) return;
      if (isPinned?.(key)) continue;
      this.entries.delete(key);
      excess--;
      onEvict?.(key, entry.value);
    }
  }
}
