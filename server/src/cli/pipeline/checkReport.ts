/**
 * One bundle checked and made into its report: what the main thread does with `--jobs 1` and each worker
 * thread does otherwise. Whatever fails on the way (the check, or reading the files again for the
 * fingerprints) becomes that bundle's internal-error, as the error boundary of the check makes it.
 */
import type { DiscoveredBundle } from '../../engine/bundle/discover';
import { failedBundle, type BundleCheckSession, type CheckObserver } from '../checkRun';
import { rolloutReport, type ReportOptions, type RolloutReport } from '../report/rolloutReport';

export interface ReportRequest extends ReportOptions {
  readonly cwd: string;
}

export function checkReport(
  session: BundleCheckSession,
  bundle: DiscoveredBundle,
  request: ReportRequest,
  observer?: CheckObserver,
): RolloutReport {
  try {
    return rolloutReport(session.check(bundle, observer), request.cwd, request);
  } catch (error) {
    return failedReport(bundle, error, request);
  }
}

/** The report of a bundle whose check failed outside the check's own boundary (a worker that died). */
export function failedReport(bundle: DiscoveredBundle, error: unknown, request: ReportRequest): RolloutReport {
  return rolloutReport(failedBundle(bundle, error), request.cwd, request);
}
