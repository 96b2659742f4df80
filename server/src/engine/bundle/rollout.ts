/**
 * A rollout bundle read as a whole: every artifact file of the rollout with its check report and
 * facts, the file that plays each role of the BenchFlow layout (shared/src/layout.ts), and the verifier's
 * own reward files.
 */
import { join } from 'node:path';
import { rolloutRoles, type ArtifactKind, type RolloutRole } from '../../../../shared/src/layout';
import type { FileReport } from '../check/report';
import type { NotRead } from '../io/containment';
import type { ArtifactFacts, DocumentFacts } from '../facts/facts';

export interface BundleFile {
  readonly path: string;
  readonly kind: ArtifactKind;
  /** Absent when the file could not be read; then `ioError` says why. */
  readonly report?: FileReport;
  readonly ioError?: string;
}

/** A verifier output file the rules read but the schemas do not cover (the verifier's reward files). */
export interface VerifierFile {
  readonly path: string;
  readonly text: string;
  /** Why `text` cannot be taken as what the file says (it is larger than was read, or not UTF-8); absent when it can. */
  readonly unreadable?: string;
}

/** A verifier reward file that is there but was not read, and why (containment.ts `NotRead`). */
export interface UnreadVerifierFile {
  readonly path: string;
  readonly why: NotRead;
}

/** A verifier reward file that is there but could not be read (permission denied, an I/O error), and why. */
export interface FailedVerifierFile {
  readonly path: string;
  readonly error: string;
}

/**
 * The verifier's reward files that were read, and those that are there but were not: they resolve
 * outside the rollout or are no regular file (a FIFO, a dangling link), or reading them failed; the
 * rules report them.
 */
export interface VerifierReward {
  readonly text?: VerifierFile;
  readonly json?: VerifierFile;
  readonly notRead?: readonly UnreadVerifierFile[];
  readonly failed?: readonly FailedVerifierFile[];
}

type FactsOf<K extends ArtifactFacts['kind']> = K extends DocumentFacts['kind']
  ? DocumentFacts
  : Extract<ArtifactFacts, { kind: K }>;

export class RolloutBundle {
  private readonly byPath: ReadonlyMap<string, BundleFile>;
  /** Each role's file once found: the rules ask for the same roles many times per evaluation. */
  private readonly byRole = new Map<RolloutRole, BundleFile | undefined>();

  constructor(
    readonly root: string,
    readonly files: readonly BundleFile[],
    readonly verifierReward: VerifierReward = {},
  ) {
    this.byPath = new Map(files.map((file) => [file.path, file]));
  }

  /** The file playing a role: the first of its paths that exists, readable or not. */
  file(role: RolloutRole): BundleFile | undefined {
    if (this.byRole.has(role)) return this.byRole.get(role);
    const found = this.findFile(role);
    this.byRole.set(role, found);
    return found;
  }

  private findFile(role: RolloutRole): BundleFile | undefined {
    for (const relativePath of rolloutRoles[role]) {
      const file = this.byPath.get(join(this.root, relativePath));
      if (file) return file;
    }
    return undefined;
  }

  /** The facts of a role's file, when it exists, was read, and is of the expected kind. */
  facts<K extends ArtifactFacts['kind']>(role: RolloutRole, kind: K): FactsOf<K> | undefined {
    const facts = this.file(role)?.report?.facts;
    return facts?.kind === kind ? (facts as FactsOf<K>) : undefined;
  }

  pathOf(role: RolloutRole): string {
    return this.file(role)?.path ?? join(this.root, rolloutRoles[role][0]);
  }
}
