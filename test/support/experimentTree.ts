/**
 * A BenchFlow-shaped experiment tree of any size, for the CLI's pipeline tests and measurements: `count`
 * rollouts spread over a few jobs, each the files of one fixture definition (taken in turn, so every
 * verdict and most codes appear), and a job-level results.jsonl per job (loose files, as BenchFlow
 * writes its aggregate). Deterministic: the same count gives the same tree.
 */
import { join } from 'node:path';
import { fixtures } from '../fixtures/definitions';
import { writeTree } from './files';

export interface ExperimentTreeOptions {
  /** How many job folders the rollouts are spread over. */
  readonly jobs?: number;
}

/** Writes the tree under `root` (which should be empty) and returns the paths of its rollout folders, sorted. */
export function writeExperimentTree(root: string, count: number, { jobs = 3 }: ExperimentTreeOptions = {}): string[] {
  const rollouts: string[] = [];
  for (let job = 0; job < jobs; job++)
    writeTree(join(root, `jobs/2026-08-22__10-0${job}-00`), { 'results.jsonl': '{"task_name": "t", "reward": 1}\n' });
  for (let index = 0; index < count; index++) {
    const fixture = fixtures[index % fixtures.length]!;
    const folder = join(
      root,
      `jobs/2026-08-22__10-0${index % jobs}-00`,
      `${fixture.name}__${String(index).padStart(6, '0')}`,
    );
    writeTree(folder, { ...fixture.files, ...fixture.bytes });
    rollouts.push(folder);
  }
  return rollouts.sort();
}
