/**
 * What the rules know of a fact about damaged or ambiguous evidence: surely so, surely not, or either.
 * A rule that helps trust needs `yes`; one that hurts trust fires on anything but `no`. Damage can then
 * only add findings or take proofs away, for any number of damaged records.
 */
export type Certainty = 'yes' | 'maybe' | 'no';

/** `yes` when every reading holds, `no` when none does, else `maybe`. */
export function certaintyOver<T>(readings: readonly T[], holds: (reading: T) => boolean): Certainty {
  let some = false;
  let all = true;
  for (const reading of readings) {
    if (holds(reading)) some = true;
    else all = false;
  }
  return all ? 'yes' : some ? 'maybe' : 'no';
}

/** Not surely false: what a rule that hurts trust fires on. */
export function possibly(certainty: Certainty): boolean {
  return certainty !== 'no';
}
