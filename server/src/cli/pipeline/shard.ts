/**
 * `--shard i/n`: a stable subset of the discovered bundles, so that CI jobs split one experiment. A
 * bundle belongs to shard `FNV-1a-32(key) mod n + 1`, where `key` is the path of its folder relative to
 * the PATH argument it was found under (forward slashes, "." for that folder itself; a bundle under no
 * PATH folder is keyed by its absolute path). Loose files are bundles like rollouts, keyed by their
 * folder. The key holds neither the working directory nor where the tree lies, so runners that check
 * the same tree out in different places agree; no randomness goes in.
 */
import { statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { DiscoveredBundle } from '../../engine/bundle/discover';
import { UsageError } from '../usageError';

export interface Shard {
  /** 1-based. */
  readonly index: number;
  readonly count: number;
}

export function parseShard(raw: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(raw);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count || !Number.isSafeInteger(count))
    throw new UsageError(`--shard takes i/n with whole numbers 1 ≤ i ≤ n (as 2/4), not "${raw}"`);
  return { index, count };
}

/** The bundles of `shard`, in the order given. `paths`: the PATH arguments, as given. */
export function bundlesOfShard(
  bundles: readonly DiscoveredBundle[],
  paths: readonly string[],
  shard: Shard,
): DiscoveredBundle[] {
  const folders = paths.map((path) => {
    const absolute = resolve(path);
    return statSync(absolute).isDirectory() ? absolute : dirname(absolute);
  });
  return bundles.filter((bundle) => shardOf(shardKey(bundle.root, folders), shard.count) === shard.index);
}

/** The 1-based shard of `key` among `count`. */
export function shardOf(key: string, count: number): number {
  return (fnv1a32(key) % count) + 1;
}

function shardKey(root: string, folders: readonly string[]): string {
  for (const folder of folders) {
    const inside = relative(folder, root);
    if (inside === '') return '.';
    if (!isAbsolute(inside) && inside.split(sep)[0] !== '..') return inside.split(sep).join('/');
  }
  return root.split(sep).join('/');
}

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
