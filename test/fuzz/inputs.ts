/**
 * Input number `index` of a fuzz run with seed `seed`: which bundle, which of its artifact files, and
 * which mutation. Each input draws from a generator of its own, seeded from the run's seed and its
 * index, so any one input replays alone, in any worker, in any order.
 */
import { randomInt } from 'node:crypto';
import { seededRandom, type SeededRandom } from '../support/random';

/** The default seed, printed with every run; ROLLOUT_EVIDENCE_FUZZ_SEED picks another. */
export const defaultSeed = 20261201;

/** Mixes a seed and an index into a well-spread 32-bit seed (the murmur3 finaliser). */
export function inputRandom(seed: number, index: number): SeededRandom {
  let hash = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b) >>> 0;
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35) >>> 0;
  return seededRandom((hash ^ (hash >>> 16)) >>> 0);
}

export interface FuzzSettings {
  readonly seed: number;
  readonly inputs: number;
  /** Only this operator, when set (ROLLOUT_EVIDENCE_FUZZ_OPERATOR): to chase one class of failure. */
  readonly operator?: string;
  /** Only these inputs, when set (ROLLOUT_EVIDENCE_FUZZ_ONLY=index,index): to replay a failure. */
  readonly only?: readonly number[];
}

function integerSetting(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, not ${JSON.stringify(text)}`);
  return value;
}

/** The run's settings from the environment; `defaultInputs` when ROLLOUT_EVIDENCE_FUZZ_INPUTS is not set. */
export function fuzzSettings(defaultInputs: number): FuzzSettings {
  const only = process.env.ROLLOUT_EVIDENCE_FUZZ_ONLY;
  return {
    seed: integerSetting('ROLLOUT_EVIDENCE_FUZZ_SEED', defaultSeed),
    inputs: integerSetting('ROLLOUT_EVIDENCE_FUZZ_INPUTS', defaultInputs),
    ...(process.env.ROLLOUT_EVIDENCE_FUZZ_OPERATOR ? { operator: process.env.ROLLOUT_EVIDENCE_FUZZ_OPERATOR } : {}),
    ...(only
      ? {
          only: only
            .split(',')
            .map((part) => Number(part.trim()))
            .filter((value) => Number.isSafeInteger(value)),
        }
      : {}),
  };
}

/** One run of the property: its settings, and what its seed is, for the test's name. */
export interface FuzzRun {
  readonly settings: FuzzSettings;
  readonly seedKind: string;
}

/**
 * The runs of one test process: the fixed seed with `defaultInputs` inputs, which every run repeats, and
 * a seed drawn afresh with `freshInputs`, so that each run (each CI run) also explores inputs no run has
 * tried; its seed is printed with its counts and in each failure's replay command. With
 * ROLLOUT_EVIDENCE_FUZZ_SEED set, that seed alone runs, as a replay.
 */
export function fuzzRuns(defaultInputs: number, freshInputs: number): readonly FuzzRun[] {
  const fixed = fuzzSettings(defaultInputs);
  if (process.env.ROLLOUT_EVIDENCE_FUZZ_SEED || fixed.only)
    return [{ settings: fixed, seedKind: `seed ${fixed.seed}` }];
  const fresh = randomInt(0, 2 ** 31);
  return [
    { settings: fixed, seedKind: `the fixed seed ${fixed.seed}` },
    {
      settings: { ...fixed, seed: fresh, inputs: integerSetting('ROLLOUT_EVIDENCE_FUZZ_INPUTS', freshInputs) },
      seedKind: `this run's own seed ${fresh}`,
    },
  ];
}
