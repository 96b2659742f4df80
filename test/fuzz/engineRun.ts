/**
 * One fuzz input checked in-process, as the language server checks a rollout (`lsp/rolloutEvaluator.ts`):
 * the mutated file's text goes through `ArtifactChecker.checkText`, every other file keeps the report
 * of the unmutated bundle, and the rules (`evaluateRollout`) and the listing (`listedFindings`) run on
 * the whole bundle. A mutated file whose bytes are not UTF-8 (or start with a byte order mark) is the
 * CLI's case instead: it is written over the bundle's copy on tmpfs and read with `checkFile`, which
 * reads bytes. The CLI's whole path (discovery, `checkBundle`, the formats) is the CLI fuzz's part.
 *
 * Command analyses are kept across inputs (keyed by the command's text, so a command an input changed
 * is always analysed afresh and its cost is that input's), and dropped after any input of more than
 * `largeInputBytes`, so that no analysis of a huge or hostile command stays in memory to count against
 * the RSS of the inputs after it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { artifactKindInfo, type ArtifactFormat, type ArtifactKind } from '../../shared/src/layout';
import { checkBundle, listedFindings, type CheckedBundle } from '../../server/src/engine/checkRollout';
import { readVerifierReward } from '../../server/src/engine/load';
import type { DiscoveredBundle } from '../../server/src/engine/bundle/discover';
import { RolloutBundle, type BundleFile, type VerifierFile } from '../../server/src/engine/bundle/rollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import type { FileReport } from '../../server/src/engine/check/report';
import { codeInfo } from '../../server/src/engine/codes';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { evaluateRollout } from '../../server/src/engine/rules/evaluate';
import { isUtf8, utf8ByteOrderMarkLength } from '../../server/src/engine/text/utf8';
import { SchemaRegistry } from '../../server/src/engine/schema/validators';
import type { Verdict } from '../../server/src/engine/verdict';
import { writeTree } from '../support/files';
import { checkRollout, discoverRollout } from '../support/rollout';
import type { CorpusBundle } from './corpus';
import { DamageClassifier } from './damage';
import type { FileShape } from './mutations';

/** Verdicts as levels: trusted-timeout and trusted are one level (both countable), so a move between them is no raise. */
export const verdictLevel: Readonly<Record<Verdict, number>> = {
  untrusted: 0,
  incomplete: 1,
  'trusted-timeout': 2,
  trusted: 2,
};

export interface TargetFile {
  readonly path: string;
  /** Relative to the bundle's root, with forward slashes. */
  readonly name: string;
  readonly kind: ArtifactKind;
  readonly format: ArtifactFormat;
  readonly bytes: Buffer;
  readonly damage: DamageClassifier;
}

export interface MaterialisedBundle {
  readonly corpus: CorpusBundle;
  readonly root: string;
  readonly discovered: DiscoveredBundle;
  readonly verdict: Verdict;
  readonly files: readonly BundleFile[];
  readonly verifierReward: { readonly text?: VerifierFile; readonly json?: VerifierFile };
  /**
   * Where the unmutated bundle's untrusted findings sit or point (their related evidence), as "path"
   * → 0-based lines: a damaged record among them carried the proof of untrust itself.
   */
  readonly untrustedEvidence: ReadonlyMap<string, ReadonlySet<number>>;
  /** The artifact files, in discovery's order: what the fuzzer mutates. */
  readonly targets: readonly TargetFile[];
}

/** What checking one mutated bundle gave. */
export type CheckOutcome =
  | { readonly ok: true; readonly verdict: Verdict; readonly cpuMs: number; readonly internalErrors: readonly string[] }
  | { readonly ok: false; readonly error: string; readonly cpuMs: number };

const largeInputBytes = 64 * 1024;

/** The messages of the internal-error findings the listing holds: the checker failed somewhere. */
function internalErrorsOf(checked: CheckedBundle, bundle: MaterialisedBundle): string[] {
  return listedFindings(checked, bundle.corpus.maxProblems)
    .findings.filter((finding) => finding.code === 'internal-error')
    .map((finding) => finding.message);
}

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

export class FuzzWorkspace {
  readonly folder: string;
  private readonly schemas = new SchemaRegistry();
  private readonly checker = new ArtifactChecker(this.schemas);
  private readonly bundles = new Map<string, MaterialisedBundle>();
  private caches = new ModelCaches();

  constructor(private readonly corpus: readonly CorpusBundle[]) {
    const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
    this.folder = mkdtempSync(join(base, 'rollout-evidence-fuzz-'));
  }

  get corpusSize(): number {
    return this.corpus.length;
  }

  /** Bundle `index` of the corpus, written and checked once. */
  bundle(index: number): MaterialisedBundle {
    const corpus = this.corpus[index]!;
    const known = this.bundles.get(corpus.name);
    if (known) return known;
    const root = join(this.folder, `bundle-${index}`, 'rollout');
    mkdirSync(root, { recursive: true });
    writeTree(root, Object.fromEntries(corpus.files));
    const discovered = discoverRollout(root);
    const checked = checkBundle(discovered, this.checker, {
      maxFindings: corpus.maxProblems,
      rules: corpus.rules,
      caches: new ModelCaches(),
    });
    const targets = discovered.files.flatMap((file): TargetFile[] => {
      const name = relative(root, file.path).split('\\').join('/');
      const bytes = corpus.files.get(name);
      if (!bytes) return [];
      const format = artifactKindInfo(file.kind).format;
      return [
        {
          path: file.path,
          name,
          kind: file.kind,
          format,
          bytes,
          damage: new DamageClassifier(file.kind, format, this.schemas.validatorFor(file.kind)),
        },
      ];
    });
    // The witnesses of untrust: where an untrusted finding sits or points, and, through any finding at
    // such a place, what that one rests on in turn (untrusted-reward points at a stale observation's
    // finding, which points at the observation).
    const untrustedEvidence = new Map<string, Set<number>>();
    const findings = checked.evaluation!.findings;
    const placeKey = (file: string, line: number) => `${file}\n${line}`;
    const findingsAt = new Map<string, (typeof findings)[number][]>();
    for (const finding of findings) {
      const key = placeKey(finding.file, finding.range.start.line);
      (findingsAt.get(key) ?? findingsAt.set(key, []).get(key)!).push(finding);
    }
    const pending = findings.filter((finding) => (finding.effect ?? codeInfo(finding.code).effect) === 'untrusted');
    const seen = new Set(pending);
    const note = (file: string, line: number) => {
      const lines = untrustedEvidence.get(file) ?? untrustedEvidence.set(file, new Set()).get(file)!;
      if (lines.has(line)) return;
      lines.add(line);
      for (const finding of findingsAt.get(placeKey(file, line)) ?? [])
        if (!seen.has(finding)) seen.add(finding) && pending.push(finding);
    };
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      note(next.file, next.range.start.line);
      for (const related of next.related ?? []) note(related.file, related.range.start.line);
    }
    const materialised = {
      corpus,
      root,
      discovered,
      verdict: checked.evaluation!.verdict,
      files: checked.files,
      verifierReward: readVerifierReward(root),
      untrustedEvidence,
      targets,
    };
    this.bundles.set(corpus.name, materialised);
    return materialised;
  }

  /** Checks `bundle` with `target` holding `bytes`, or made into `shape` on disk. */
  check(bundle: MaterialisedBundle, target: TargetFile, bytes: Buffer, shape?: FileShape): CheckOutcome {
    const start = process.cpuUsage();
    try {
      if (shape) return { ok: true, ...this.checkShaped(bundle, target, shape), cpuMs: cpuMsSince(start) };
      const options = { maxFindings: bundle.corpus.maxProblems };
      const report =
        isUtf8(bytes) && utf8ByteOrderMarkLength(bytes) === 0
          ? this.checker.checkText(bytes.toString('utf8'), target.kind, options)
          : this.checkOnDisk(target, bytes, options);
      const files = bundle.files.map((file) =>
        file.path === target.path ? { path: file.path, kind: file.kind, report } : file,
      );
      const evaluation = evaluateRollout(
        new RolloutBundle(bundle.root, files, bundle.verifierReward),
        bundle.corpus.rules,
        this.caches,
      );
      const internalErrors = internalErrorsOf({ root: bundle.root, loose: false, files, evaluation }, bundle);
      return { ok: true, verdict: evaluation.verdict, cpuMs: cpuMsSince(start), internalErrors };
    } catch (error) {
      const cpuMs = cpuMsSince(start);
      return {
        ok: false,
        error:
          error instanceof Error
            ? `${error.name}: ${error.message}\n${(error.stack ?? '').split('\n').slice(1, 6).join('\n')}`
            : String(error),
        cpuMs,
      };
    } finally {
      if (bytes.length > largeInputBytes) this.caches = new ModelCaches();
    }
  }

  /**
   * The CLI's whole path (discovery, then every file read from disk) over the bundle with `target` made
   * into `shape`, which only a file on disk can be; the file is put back after.
   */
  private checkShaped(
    bundle: MaterialisedBundle,
    target: TargetFile,
    shape: FileShape,
  ): { verdict: Verdict; internalErrors: readonly string[] } {
    rmSync(target.path, { force: true });
    try {
      switch (shape.kind) {
        case 'fifo':
          execFileSync('mkfifo', [target.path]);
          break;
        case 'dangling-link':
          symlinkSync(join(this.folder, 'no-such-file'), target.path);
          break;
        case 'link-to-dev-null':
          symlinkSync('/dev/null', target.path);
          break;
        case 'link-outside': {
          const outside = join(this.folder, `outside-${target.name.split('/').join('-')}`);
          writeFileSync(outside, target.bytes);
          symlinkSync(outside, target.path);
          break;
        }
        case 'unending-line':
          writeFileSync(target.path, target.bytes);
          truncateSync(target.path, target.bytes.length + shape.holeBytes);
          break;
      }
      const checked = checkRollout(bundle.root, this.checker, {
        maxFindings: bundle.corpus.maxProblems,
        rules: bundle.corpus.rules,
        caches: new ModelCaches(),
      });
      return { verdict: checked.evaluation!.verdict, internalErrors: internalErrorsOf(checked, bundle) };
    } finally {
      rmSync(target.path, { force: true });
      writeFileSync(target.path, target.bytes);
    }
  }

  /** The CLI's read of a file: bytes from disk, written over the bundle's copy and put back after. */
  private checkOnDisk(target: TargetFile, bytes: Buffer, options: { readonly maxFindings: number }): FileReport {
    writeFileSync(target.path, bytes);
    try {
      return this.checker.checkFile(target.path, target.kind, options);
    } finally {
      writeFileSync(target.path, target.bytes);
    }
  }

  remove(): void {
    rmSync(this.folder, { recursive: true, force: true });
  }
}
