/** A small deterministic generator for randomised tests, so that a failing seed replays the failure. */
export interface SeededRandom {
  /** In [0, 1). */
  fraction(): number;
  /** An integer in [0, bound). */
  below(bound: number): number;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const fraction = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return { fraction, below: (bound) => Math.floor(fraction() * bound) };
}
