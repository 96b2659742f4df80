/**
 * Whether a rollout folder is a fixture bundle: it lies under a folder the user marks as holding
 * fixtures (`rolloutEvidence.fixtureFolders`, the CLI's `--fixture-folders`), or New Fixture Bundle
 * wrote it (the marker file at its root). Records authored by a quick fix or the scaffold count as
 * evidence only there. The language server and the CLI decide it and pass it to the rules as an option.
 */
import { lstatSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Minimatch } from 'minimatch';
import { fixtureMarkerFile } from '../../../shared/src/scaffold';
import { listedEntry, type RolloutListing } from '../engine/bundle/discover';

export class FixtureFolders {
  private readonly matchers: readonly Minimatch[];

  constructor(readonly globs: readonly string[]) {
    // A glob without `/` names a folder anywhere, as `files.associations` names a file.
    this.matchers = globs.map(
      (glob) =>
        new Minimatch(glob, { dot: true, matchBase: !glob.includes('/'), nocase: process.platform === 'win32' }),
    );
  }

  /** The folder, or one above it, matches a glob. */
  contains(folder: string): boolean {
    if (this.matchers.length === 0) return false;
    for (let current = resolve(folder); ; current = dirname(current)) {
      const forward = current.replace(/\\/g, '/');
      if (this.matchers.some((matcher) => matcher.match(forward))) return true;
      if (dirname(current) === current) return false;
    }
  }
}

/**
 * The scaffold's marker: a regular file at the root, not a link (a link could point anywhere). `listing`:
 * what discovery saw of the rollout, which answers without looking again.
 */
export function hasFixtureMarker(root: string, listing?: RolloutListing): boolean {
  const listed = listedEntry(listing, fixtureMarkerFile);
  if (listed !== undefined) return listed === 'file';
  try {
    return lstatSync(join(root, fixtureMarkerFile)).isFile();
  } catch {
    return false;
  }
}

export function isFixtureBundle(root: string, folders: FixtureFolders, listing?: RolloutListing): boolean {
  return folders.contains(root) || hasFixtureMarker(root, listing);
}

/** One compiled set of globs per distinct list: the server asks for every rollout it lists. */
const compiled = new Map<string, FixtureFolders>();
const maxCompiled = 64;

export function fixtureFoldersOf(globs: readonly string[]): FixtureFolders {
  const key = JSON.stringify(globs);
  let folders = compiled.get(key);
  if (!folders) {
    if (compiled.size >= maxCompiled) compiled.clear();
    folders = new FixtureFolders(globs);
    compiled.set(key, folders);
  }
  return folders;
}
