import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentlyUsedCache } from '../../server/src/engine/recentlyUsedCache';

describe('recently used cache', () => {
  it('evicts the least recently used first, a read counting as a use', () => {
    const evicted: string[] = [];
    const cache = new RecentlyUsedCache<string>({
      maxEntries: 2,
      onEvict: (key, value) => evicted.push(`${key}=${value}`),
    });
    cache.set('a', 1, 'A');
    cache.set('b', 1, 'B');
    assert.equal(cache.get('a', 1), 'A');
    cache.set('c', 1, 'C');
    assert.deepEqual(evicted, ['b=B']);
    assert.equal(cache.get('b', 1), undefined);
    assert.equal(cache.get('a', 1), 'A');
    assert.equal(cache.get('c', 1), 'C');
    cache.set('d', 1, 'D');
    assert.deepEqual(evicted, ['b=B', 'a=A']);
    assert.equal(cache.size, 2);
  });

  it('answers only the version a value was kept for, and latest() whatever version is kept', () => {
    const cache = new RecentlyUsedCache<string>({ maxEntries: 10 });
    cache.set('doc', 3, 'three');
    assert.equal(cache.get('doc', 4), undefined);
    assert.equal(cache.get('doc', '3'), undefined);
    assert.deepEqual(cache.latest('doc'), { version: 3, value: 'three' });
    cache.set('doc', 4, 'four');
    assert.equal(cache.get('doc', 3), undefined);
    assert.equal(cache.get('doc', 4), 'four');
    assert.equal(cache.size, 1);
  });

  it('latest() does not count as a use', () => {
    const cache = new RecentlyUsedCache<string>({ maxEntries: 2 });
    cache.set('a', 1, 'A');
    cache.set('b', 1, 'B');
    cache.latest('a');
    cache.set('c', 1, 'C');
    assert.equal(cache.latest('a'), undefined);
    assert.equal(cache.get('b', 1), 'B');
  });

  it('never evicts a pinned key, and counts only the others against the bound', () => {
    const pinned = new Set(['open']);
    const evicted: string[] = [];
    const cache = new RecentlyUsedCache<number>({
      maxEntries: 2,
      isPinned: (key) => pinned.has(key),
      onEvict: (key) => evicted.push(key),
    });
    cache.set('open', 1, 0);
    cache.set('x', 1, 1);
    cache.set('y', 1, 2);
    assert.deepEqual(evicted, []);
    cache.set('z', 1, 3);
    assert.deepEqual(evicted, ['x']);
    assert.equal(cache.get('open', 1), 0);
    // Unpinned later, it is evicted like any other once it is the least recently used.
    pinned.clear();
    cache.get('y', 1);
    cache.get('z', 1);
    cache.set('w', 1, 4);
    assert.deepEqual(evicted, ['x', 'open', 'y']);
  });

  it('calls onEvict only for evictions, not for deletes, replacements or clearing', () => {
    const evicted: string[] = [];
    const cache = new RecentlyUsedCache<string>({ maxEntries: 3, onEvict: (key) => evicted.push(key) });
    cache.set('a', 1, 'A');
    cache.set('a', 2, 'A2');
    cache.set('b', 1, 'B');
    cache.set('c', 1, 'C');
    cache.delete('a');
    cache.deleteWhere((key) => key === 'b');
    assert.equal(cache.size, 1);
    cache.clear();
    assert.equal(cache.size, 0);
    assert.deepEqual(evicted, []);
  });

  it('keeps everything when unbounded, until deleted', () => {
    const cache = new RecentlyUsedCache<number>({ maxEntries: Infinity });
    for (let index = 0; index < 1000; index++) cache.set(`k${index}`, 0, index);
    assert.equal(cache.size, 1000);
    cache.deleteWhere((key) => key.endsWith('0'));
    assert.equal(cache.size, 900);
    assert.equal(cache.get('k999', 0), 999);
  });
});
