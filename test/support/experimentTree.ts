/**
 * A BenchFlow experiment on disk: `jobs/<timestamp>/<task>__<id>/` rollouts, as many as asked, made from
 * the fixture bundles (test/fixtures/definitions.ts) with a realistic mix of verdicts over several tasks
 * and agents. Seeded, so the same arguments write the same bytes: the tests can count what they expect
 * and the benches compare like with like.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Verdict } from '../../server/src/engine/verdict';
import { fixtures, type FixtureDefinition } from '../fixtures/definitions';
import { seededRandom } from './random';

export interface ExperimentTreeOptions {
  /** How many rollouts to write. */
  readonly rollouts: number;
  /** The same seed writes the same tree. */
  readonly seed?: number;
  /** How many `jobs/<timestamp>/` folders the rollouts are spread over (BenchFlow writes one per run). */
  readonly jobs?: number;
}

export interface GeneratedRollout {
  /** The rollout's folder, relative to the tree's root (`jobs/<timestamp>/<task>__<id>`). */
  readonly path: string;
  readonly task: string;
  readonly agent: string;
  /** The fixture it was made from. */
  readonly fixture: string;
  /** The fixture's verdict, which the rename keeps (the CLI's default options, as for the fixture). */
  readonly verdict: Verdict;
}

export interface ExperimentTree {
  readonly root: string;
  /** In the order written; not sorted. */
  readonly rollouts: readonly GeneratedRollout[];
  /** Bytes written, over every file. */
  readonly bytes: number;
}

/**
 * The fixtures an experiment is made of, by weight (out of 100): mostly completed rollouts, some accepted
 * and some unresolved timeouts, and the untrusted and incomplete causes a reviewer meets. Each is judged
 * with the default options (no fixture that needs an option, so the CLI's default run agrees with it).
 */
const mix: readonly (readonly [fixture: string, weight: number])[] = [
  ['benchflow-completed', 50],
  ['benchflow-total-only-usage', 5],
  ['healthy', 5],
  ['benchflow-idle-timeout', 8],
  ['tool-ended-by-framework', 3],
  ['benchflow-wall-clock-timeout-pending-tool', 8],
  ['no-hardening-records', 4],
  ['review-no-reward', 2],
  ['jsonl-partial-line', 1],
  ['survivors-with-reward', 4],
  ['masked-quiescence-probe', 3],
  ['verifier-before-quiescence', 3],
  ['review-training-ready', 2],
  ['timeout-pending-mismatch', 2],
];

export const experimentTasks: readonly string[] = [
  'hello-world',
  'fix-flaky-test',
  'parse-csv-report',
  'migrate-sqlite-schema',
  'resize-images',
  'build-rust-cli',
  'debug-segfault',
  'write-api-client',
];

export const experimentAgents: readonly string[] = ['claude-agent-acp', 'codex-acp', 'openhands', 'gemini-cli'];

/** The task and agent the fixtures are written for, which each rollout renames. */
const fixtureTask = 'hello-world';
const fixtureAgents = /\b(?:claude-agent-acp|codex-acp)\b/g;
const fixtureRolloutName = /hello-world__[0-9a-z]{8}/g;
const fixtureJobDir = 'jobs/2026-08-22__10-00-00/';

/** Writes the tree below `root` (which may exist) and says what it wrote. */
export function writeExperimentTree(root: string, options: ExperimentTreeOptions): ExperimentTree {
  const random = seededRandom(options.seed ?? 1);
  const templates = mix.map(([name, weight]) => ({ definition: fixtureNamed(name), weight }));
  const totalWeight = templates.reduce((sum, template) => sum + template.weight, 0);
  const jobCount = Math.max(1, options.jobs ?? 1);
  const timestamps = Array.from({ length: jobCount }, (_, index) => jobTimestamp(index));
  const usedIds = new Set<string>();
  const rollouts: GeneratedRollout[] = [];
  let bytes = 0;
  for (let index = 0; index < options.rollouts; index++) {
    let pick = random.below(totalWeight);
    const template = templates.find((candidate) => (pick -= candidate.weight) < 0) ?? templates[0]!;
    const task = experimentTasks[random.below(experimentTasks.length)]!;
    const agent = experimentAgents[random.below(experimentAgents.length)]!;
    const id = uniqueId(random, usedIds);
    const timestamp = timestamps[Math.floor((index * jobCount) / options.rollouts)]!;
    const rolloutName = `${task}__${id}`;
    const path = `jobs/${timestamp}/${rolloutName}`;
    const rename = (text: string): string =>
      text
        .replaceAll(fixtureJobDir, `jobs/${timestamp}/`)
        .replace(fixtureRolloutName, rolloutName)
        .replaceAll(fixtureTask, task)
        .replace(fixtureAgents, agent);
    for (const [relativePath, content] of Object.entries(template.definition.files)) {
      const file = join(root, path, relativePath);
      mkdirSync(dirname(file), { recursive: true });
      const text = rename(content);
      writeFileSync(file, text);
      bytes += Buffer.byteLength(text);
    }
    rollouts.push({ path, task, agent, fixture: template.definition.name, verdict: template.definition.verdict });
  }
  return { root, rollouts, bytes };
}

function fixtureNamed(name: string): FixtureDefinition {
  const definition = fixtures.find((candidate) => candidate.name === name);
  // A fixture the mix names must be judged as a rollout of a jobs tree is: with the default options, text only.
  if (!definition || definition.options || definition.bytes || definition.maxProblems !== undefined)
    throw new Error(`experimentTree: fixture ${name} is missing or needs options`);
  return definition;
}

/** BenchFlow's job folder name: `YYYY-MM-DD__HH-MM-SS`, one hour apart per job. */
function jobTimestamp(index: number): string {
  const at = new Date(Date.UTC(2026, 7, 22, 10) + index * 3_600_000).toISOString();
  return `${at.slice(0, 10)}__${at.slice(11, 19).replaceAll(':', '-')}`;
}

/** Eight lowercase hex digits, as BenchFlow's rollout ids, never repeated within a tree. */
function uniqueId(random: ReturnType<typeof seededRandom>, used: Set<string>): string {
  for (;;) {
    const id = random
      .below(2 ** 32)
      .toString(16)
      .padStart(8, '0');
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}
