/**
 * The running totals of a run, kept from the rollouts' reports as they are written: counts, the
 * experiment summary's counts, and the messages of the files that could not be read. Nothing of a
 * rollout is kept once it is added. Every run goes through it (check, streamed or not, and merge), so it
 * is the one place the summary is fed.
 */
import { verdicts, type Verdict } from '../../engine/verdict';
import { displayPath } from '../../../../shared/src/paths';
import type { CheckFailure, ExitStatus, Totals } from './run';
import { SummaryBuilder } from '../../engine/experiment/summary';
import { absolutePathOf, checkerFailed, tallyOfReport, type RolloutReport } from './rolloutReport';
import type { RunContext, RunEnd } from './reportWriter';

export class RunTally {
  private readonly counts = { error: 0, warning: 0, information: 0, hint: 0 };
  private readonly verdicts = Object.fromEntries(verdicts.map((verdict) => [verdict, 0])) as Record<Verdict, number>;
  private readonly ioErrors: string[];
  private bundles = 0;
  private failedBundles = 0;
  private rollouts = 0;
  private looseFiles = 0;
  private files = 0;
  private omitted = 0;
  private looseErrors = false;
  private readonly experiment = new SummaryBuilder();

  constructor(private readonly context: RunContext) {
    this.ioErrors = [...context.check.unreadableFolders];
  }

  add(report: RolloutReport): void {
    this.bundles++;
    if (checkerFailed(report)) this.failedBundles++;
    this.files += report.files.length;
    if (report.loose) this.looseFiles += report.files.length;
    else this.rollouts++;
    if (report.verdict !== null) this.verdicts[report.verdict]++;
    const tally = tallyOfReport(report);
    if (tally) this.experiment.add(tally);
    for (const { omitted } of report.limited) this.omitted += omitted;
    this.counts.error += report.counts.errors;
    this.counts.warning += report.counts.warnings;
    this.counts.information += report.counts.information;
    this.counts.hint += report.counts.hints;
    if (report.loose && report.counts.errors > 0) this.looseErrors = true;
    for (const file of report.files) {
      if (file.error !== undefined)
        this.ioErrors.push(
          `cannot read ${displayPath(this.context.cwd, absolutePathOf(this.context.cwd, report, file.file))}: ${file.error}`,
        );
    }
  }

  get totals(): Totals {
    return {
      ...this.counts,
      rollouts: this.rollouts,
      looseFiles: this.looseFiles,
      files: this.files,
      omitted: this.omitted,
      verdicts: { ...this.verdicts },
    };
  }

  /** Something could not be read, or the checker failed on every bundle. */
  failure(): CheckFailure | undefined {
    if (this.ioErrors.length > 0) {
      const count = this.ioErrors.length;
      return {
        kind: 'unreadable',
        message: `${count} path${count === 1 ? '' : 's'} could not be read (everything readable was checked): ${this.ioErrors.join('; ')}`,
      };
    }
    if (this.bundles > 0 && this.failedBundles === this.bundles) {
      return {
        kind: 'checker-failed',
        message: `The checker failed on ${this.bundles === 1 ? 'the one bundle' : `every one of the ${this.bundles} bundles`} found, so nothing was checked; see the internal-error finding${this.bundles === 1 ? '' : 's'}.`,
      };
    }
    return undefined;
  }

  /** 2 when something could not be read or nothing could be checked; 1 when a rollout's verdict fails the run or a loose file has errors. */
  exitStatus(): ExitStatus {
    if (this.failure()) return 2;
    const failing: readonly Verdict[] =
      this.context.check.options.failOn === 'untrusted' ? ['untrusted'] : ['untrusted', 'incomplete'];
    return failing.some((verdict) => this.verdicts[verdict] > 0) || this.looseErrors ? 1 : 0;
  }

  end(): RunEnd {
    return {
      totals: this.totals,
      ioErrors: [...this.ioErrors],
      failure: this.failure(),
      exitStatus: this.exitStatus(),
      experiment: this.experiment.result(),
    };
  }
}
