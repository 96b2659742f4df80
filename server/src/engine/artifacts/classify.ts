/**
 * Decides which artifact kind a file is, from its path: the user's own patterns first, then the real
 * BenchFlow layout.
 */
import { Minimatch } from 'minimatch';
import { artifactPatterns, type ArtifactKind } from '../../../../shared/src/layout';

interface KindPattern {
  /** `usual`: the path has nothing a suffix test cannot judge (`unusualPath`). */
  readonly matches: (forwardPath: string, usual: boolean) => boolean;
  readonly kind: ArtifactKind;
}

export class ArtifactClassifier {
  private readonly patterns: readonly KindPattern[];

  constructor(userPatterns: Readonly<Record<string, ArtifactKind>> = {}) {
    this.patterns = artifactPatterns(userPatterns).map(({ glob, kind }) => compile(glob, kind));
  }

  kindOf(path: string): ArtifactKind | undefined {
    const forward = path.includes('\\') ? path.replace(/\\/g, '/') : path;
    const usual = !unusualPath.test(forward);
    return this.patterns.find((pattern) => pattern.matches(forward, usual))?.kind;
  }
}

const caseInsensitive = process.platform === 'win32';

/** `**` followed by a path with nothing special to a glob: every built-in pattern, and most of a user's. */
const anywhereLiteral = /^\*\*\/([^*?[\]{}()!+@\\]+)$/;

/**
 * What a suffix test cannot judge as minimatch does: an empty folder name, a `.` or `..` one (its `**`
 * takes neither), a trailing slash. Discovery's paths, made by path.join, never have these.
 */
const unusualPath = /\/\/|(^|\/)\.\.?(\/|$)|\/$/;

function compile(glob: string, kind: ArtifactKind): KindPattern {
  const matcher = new Minimatch(glob, { dot: true, nocase: caseInsensitive });
  const literal = anywhereLiteral.exec(glob)?.[1];
  if (literal === undefined || caseInsensitive || unusualPath.test(literal))
    return { matches: (path) => matcher.match(path), kind };
  // Discovery asks of every file in a jobs tree; for these patterns (with `dot`, `**` takes any folders,
  // hidden ones too) a suffix test answers as minimatch would, at a fraction of the cost.
  const suffix = `/${literal}`;
  return {
    matches: (path, usual) => (usual ? path === literal || path.endsWith(suffix) : matcher.match(path)),
    kind,
  };
}
