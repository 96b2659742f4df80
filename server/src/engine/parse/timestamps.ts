/**
 * Timestamps as BenchFlow writes them (ISO 8601, and Python's str(datetime), "2026-08-22 10:00:00.000001"),
 * in milliseconds since the epoch: the one reading that the rules, the timeline picture and the hints share.
 */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/.exec(
    value.trim(),
  );
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '0', zone] = match;
  let time =
    Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)) +
    Number(`0.${fraction}`) * 1000;
  if (zone && zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    time -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return Number.isFinite(time) ? time : undefined;
}
