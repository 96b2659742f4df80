/**
 * The one order of paths and names in everything the tool writes or shows: ICU's collation for en-US,
 * whatever the locale of the machine it runs on. `localeCompare` alone follows the process's locale
 * (LANG): sv-SE puts `å` after `z`, tr-TR orders `i` and `I` otherwise, so a report, the shards of a run
 * made on runners set up differently and their merge, or the editor beside the CLI, would list the same
 * rollouts in different orders. en-US is what Node gives under C.UTF-8 and en_US, so the order of reports
 * made before stays as it was.
 */
export const compareNames: (a: string, b: string) => number = new Intl.Collator('en-US').compare;
