/**
 * `rollout-evidence new-fixture`: writes a scenario's rollout folder for a benchmark's own fixtures, in
 * BenchFlow's real layout. It never overwrites: an existing folder is refused and nothing is written.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../../../shared/src/errors';
import { rolloutFiles, rolloutFolders } from '../../../shared/src/layout';
import { benchflowStyleRolloutName, type ScenarioSummary } from '../../../shared/src/scaffold';
import { writeScaffoldFiles, type ScaffoldWriteOutcome } from '../../../shared/src/scaffoldWrite';
import { scaffoldRollout, ScaffoldUsageError, scenarioSummaries } from '../authoring/scaffold/scaffold';
import type { ExitStatus } from './report/run';
import { writeStderrMessage } from './stderrMessage';
import { printable } from '../engine/text/printable';

const defaultTask = 'hello-world';

export const newFixtureUsage = `Usage: rollout-evidence new-fixture --scenario ID --out DIR [--name NAME]

Writes a complete rollout folder, DIR/NAME, in BenchFlow's layout (${rolloutFiles.config}, ${rolloutFiles.result},
${rolloutFiles.results}, ${rolloutFolders.trajectory}/, ${rolloutFolders.benchguard}/, ${rolloutFolders.verifier}/, ...) for a situation the rules judge as named.
It never overwrites: when DIR/NAME exists, nothing is written.

Options:
  --scenario ID              what the rollout shows (required):
${scenarioSummaries().map(describeForUsage).join('\n')}
  --out DIR                  the folder to create the rollout folder in, such as a job folder
                             (required; created when missing)
  --name NAME                the rollout folder's name, one folder name of letters, digits, ".",
                             "_" and "-" (default: ${defaultTask}__ and 8 random hex digits, as
                             BenchFlow names rollouts); a <task>__<8 hex> name sets the task

Exit status: 0 written, 2 usage error, an existing folder, or a file that could not be written.`;

function describeForUsage(scenario: ScenarioSummary): string {
  const settings = scenario.requiredSettings.map((setting) => ` with --${kebabCase(setting)}`).join('');
  return `                               ${scenario.id.padEnd(28)}${scenario.verdict}${settings}`;
}

function kebabCase(setting: string): string {
  return setting.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

export function newFixtureCommand(argv: readonly string[]): ExitStatus {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      scenario: { type: 'string' },
      out: { type: 'string' },
      name: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${newFixtureUsage}\n`);
    return 0;
  }
  const ids = scenarioSummaries().map((scenario) => scenario.id);
  if (values.scenario === undefined) throw new ScaffoldUsageError(`--scenario is required: ${ids.join(', ')}`);
  if (values.out === undefined || values.out === '')
    throw new ScaffoldUsageError('--out is required: the folder to create the rollout folder in');
  const name = values.name ?? benchflowStyleRolloutName(defaultTask, randomBytes(4).toString('hex'));
  const scaffold = scaffoldRollout(values.scenario, name, new Date());
  const scenario = scenarioSummaries().find((candidate) => candidate.id === values.scenario)!;

  const root = join(values.out, name);
  let written: ScaffoldWriteOutcome;
  try {
    mkdirSync(values.out, { recursive: true });
    written = writeScaffoldFiles(root, scaffold.files);
  } catch (error) {
    writeStderrMessage(`could not write ${root}: ${errorMessage(error)}`);
    return 2;
  }
  if (written.kind === 'symlink')
    throw new ScaffoldUsageError(`${root} is a symbolic link: nothing was written (choose another --name or --out)`);
  if (written.kind === 'exists')
    throw new ScaffoldUsageError(`${root} already exists: nothing was written (choose another --name or --out)`);
  // Quoted for a shell, and printable: a name given with a control character is shown, not obeyed.
  const shown = printable(quoteForDisplay(root));
  const flags = scenario.requiredSettings.map((setting) => ` --${kebabCase(setting)}`).join('');
  process.stdout.write(
    `Wrote ${shown} (${scaffold.files.length} files): ${scenario.label}.\n` +
      `Expected: verdict ${scenario.verdict}${scenario.codes.length > 0 ? `, with ${scenario.codes.join(', ')}` : ', no findings'}.\n` +
      `Check it: rollout-evidence check ${shown}${flags}\n`,
  );
  return 0;
}

/** The path as a shell word, for a command line the user may copy: it is printed, never run. */
function quoteForDisplay(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
