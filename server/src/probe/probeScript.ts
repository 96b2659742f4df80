/** The probe script's text: kept as a shell file so it can be read, and run, as what it is. */
import script from './quiescenceProbe.sh';

export const quiescenceProbeScript: string = script;

/** Rounds of TERM then KILL at most, before the final observation. */
export const probeRounds = 3;
