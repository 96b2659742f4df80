/**
 * Who wrote a record that proves something, as the model reads it (rules/provenance.ts reports a record
 * whose provenance keeps it from proving anything). A record our live probe wrote says
 * `"provenance": "probe"`; one a quick fix or the fixture scaffold wrote says `"authored"`, which counts
 * only in a fixture bundle; a record without the field is judged on what it says; any other value is
 * damage, and proves nothing anywhere.
 */
export type Provenance = 'absent' | 'probe' | 'authored' | 'unknown';

/** The provenances a kind of record may carry: only the probe writes observations; annotations are the framework's. */
export const observationProvenances: readonly Provenance[] = ['probe', 'authored'];
export const annotationProvenances: readonly Provenance[] = ['authored'];

export function provenanceOf(value: unknown, known: readonly Provenance[]): Provenance {
  if (value === undefined) return 'absent';
  return known.find((provenance) => provenance === value) ?? 'unknown';
}

/** Whether a record of this provenance may prove anything in this bundle. */
export function provenanceCounts(provenance: Provenance, fixtureBundle: boolean): boolean {
  return provenance === 'absent' || provenance === 'probe' || (provenance === 'authored' && fixtureBundle);
}
