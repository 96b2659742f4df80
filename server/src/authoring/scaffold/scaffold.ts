/**
 * A scenario's rollout folder as files, for the language server's request and the CLI alike. Inputs
 * are checked here, so neither can be led to write outside the folder it was given.
 */
import {
  fixtureMarkerFile,
  rolloutNameProblem,
  taskOfRolloutName,
  type ScaffoldFiles,
  type ScenarioSummary,
} from '../../../../shared/src/scaffold';
import { rolloutFileTexts } from './rolloutText';
import { scenarios } from './scenarios';

/** A request that names no scenario, or an unsafe rollout name; the message is for the user as it stands. */
export class ScaffoldUsageError extends Error {}

export function scenarioSummaries(): ScenarioSummary[] {
  return scenarios.map(({ build: _build, ...summary }) => summary);
}

export function scenarioIds(): string[] {
  return scenarios.map((scenario) => scenario.id);
}

export function scaffoldRollout(scenarioId: string, rolloutName: string, startedAt: Date): ScaffoldFiles {
  const scenario = scenarios.find((candidate) => candidate.id === scenarioId);
  if (!scenario)
    throw new ScaffoldUsageError(`unknown scenario "${scenarioId}": the scenarios are ${scenarioIds().join(', ')}`);
  const problem = rolloutNameProblem(rolloutName);
  if (problem !== undefined) throw new ScaffoldUsageError(`${problem} (got ${JSON.stringify(rolloutName)})`);
  if (Number.isNaN(startedAt.getTime())) throw new ScaffoldUsageError('the start time is not a valid date');
  const parts = scenario.build({ task: taskOfRolloutName(rolloutName), rolloutName, startedAt });
  const files = [...rolloutFileTexts(parts)].map(([path, content]) => ({ path, content }));
  return {
    files: [...files, { path: fixtureMarkerFile, content: fixtureMarker(scenario.id) }],
    focusFile: scenario.focusFile,
  };
}

/**
 * The marker that makes the bundle a fixture wherever it is written (authoring/fixtureBundles.ts): its
 * authored records count as evidence. What it says is for the reader; only its presence is read.
 */
function fixtureMarker(scenarioId: string): string {
  const marker = {
    fixture: true,
    written_by: 'Rollout Evidence: New Fixture Bundle',
    scenario: scenarioId,
    note: 'Records here marked "provenance": "authored" were written by a tool, not observed. Remove this file and they prove nothing.',
  };
  return `${JSON.stringify(marker, null, 2)}\n`;
}
