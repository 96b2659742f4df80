/**
 * Decides which artifact kind a file is, from its path: the user's own patterns first, then the real
 * BenchFlow layout.
 */
import { Minimatch } from 'minimatch';
import { artifactPatterns, type ArtifactKind } from '../../../../shared/src/layout';

interface KindPattern {
  readonly matcher: Minimatch;
  readonly kind: ArtifactKind;
}

export class ArtifactClassifier {
  private readonly patterns: readonly KindPattern[];

  constructor(userPatterns: Readonly<Record<string, ArtifactKind>> = {}) {
    this.patterns = artifactPatterns(userPatterns).map(({ glob, kind }) => compile(glob, kind));
  }

  kindOf(path: string): ArtifactKind | undefined {
    const forward = path.replace(/\\/g, '/');
    return this.patterns.find((pattern) => pattern.matcher.match(forward))?.kind;
  }
}

function compile(glob: string, kind: ArtifactKind): KindPattern {
  return { matcher: new Minimatch(glob, { dot: true, nocase: process.platform === 'win32' }), kind };
}
