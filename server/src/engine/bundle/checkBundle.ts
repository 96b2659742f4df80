/**
 * Checks every artifact of a discovered bundle. Each file is checked on its own for now; the evidence
 * rules that read a bundle as a whole build on the same reports.
 */
import type { ArtifactKind } from '../../../../shared/src/artifactKinds';
import type { ArtifactChecker, FileCheckOptions } from '../check/artifactChecker';
import type { FileReport } from '../check/report';
import type { DiscoveredBundle } from './discover';
import { describeFileError } from './fileErrors';

export interface CheckedFile {
  readonly path: string;
  readonly kind: ArtifactKind;
  /** Absent when the file could not be read; then `ioError` says why. */
  readonly report?: FileReport;
  readonly ioError?: string;
}

export interface CheckedBundle {
  readonly root: string;
  readonly loose: boolean;
  readonly files: readonly CheckedFile[];
}

export function checkBundle(
  bundle: DiscoveredBundle,
  checker: ArtifactChecker,
  options: FileCheckOptions & { readonly onFileStart?: (path: string) => void },
): CheckedBundle {
  const files = bundle.files.map((file): CheckedFile => {
    options.onFileStart?.(file.path);
    try {
      return { ...file, report: checker.checkFile(file.path, file.kind, options) };
    } catch (error) {
      return { ...file, ioError: describeFileError(error) };
    }
  });
  return { root: bundle.root, loose: bundle.loose, files };
}
