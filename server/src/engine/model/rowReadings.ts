/**
 * Trajectory rows whose type cannot be taken at its word (facts/rows.ts `rowKindsOf`): such a row may be
 * each kind in its `kinds`, and is read once, into the fact of each. Whether it is the kind of a fact is
 * then only maybe: a rule that helps trust needs `yes`, one that hurts trust fires on `maybe` too, so any
 * number of such rows only adds findings, in one pass of the rules.
 *
 * A finding that holds only when some of these rows are read otherwise than written says which, and as
 * what (`RowReadings`). The readings a conclusion needs are joined without asking whether they can all
 * hold at once, save where a rule would read one row two ways (it leaves out, say, a timeout marker's
 * own row from the calls the marker may leave unresolved): joining more than can hold only adds a finding.
 */
import type { TimeoutFact, TrajectoryFacts, TrajectoryRowFact } from '../facts/facts';
import type { RowKind } from '../facts/facts';
import type { Certainty } from './certainty';

/** Whether the row is the kind of its fact: surely when taken at its word, else maybe. */
export function rowIs(row: TrajectoryRowFact): Extract<Certainty, 'yes' | 'maybe'> {
  return row.kinds === undefined ? 'yes' : 'maybe';
}

/** Whether the row is written as `kind`, the kind of its fact: what views show. */
export function writtenAs(row: TrajectoryRowFact, kind: RowKind): boolean {
  return row.kinds === undefined || row.kinds[0] === kind;
}

/** The last row written as an agent_timeout row, as views show it. */
export function writtenLastTimeout(facts: TrajectoryFacts): TimeoutFact | undefined {
  for (let index = facts.timeouts.length - 1; index >= 0; index--)
    if (writtenAs(facts.timeouts[index]!, 'agent_timeout')) return facts.timeouts[index];
  return undefined;
}

/**
 * A reading a conclusion needs: the rows of `rows` from `from` on each read as `kind` (`as`), or each as
 * another kind (`not`). A range of one list, so that the rows after each of many need not be copied.
 */
interface Clause {
  readonly rows: readonly TrajectoryRowFact[];
  readonly from: number;
  readonly kind: RowKind;
  readonly read: 'as' | 'not';
}

/** A row read otherwise than written, for the words of a finding. */
interface Reread {
  readonly line: number;
  readonly as: RowKind;
}

/** Rows a finding's words name one by one; it says there are others beyond them. */
const namedRows = 5;

/**
 * The readings of rows whose type cannot be taken at its word under which a conclusion holds. Most hold
 * as written; a finding that needs a row read otherwise says which (`note`).
 */
export class RowReadings {
  static readonly asWritten = new RowReadings([]);

  private constructor(private readonly clauses: readonly Clause[]) {}

  /** `row` read as `kind`, one of the kinds it may be. */
  static as(row: TrajectoryRowFact, kind: RowKind): RowReadings {
    return row.kinds === undefined
      ? RowReadings.asWritten
      : new RowReadings([{ rows: [row], from: 0, kind, read: 'as' }]);
  }

  /** Each of `rows` from `from` on read as `kind`, one of the kinds each may be. */
  static allOf(rows: readonly TrajectoryRowFact[], kind: RowKind, from = 0): RowReadings {
    return from >= rows.length ? RowReadings.asWritten : new RowReadings([{ rows, from, kind, read: 'as' }]);
  }

  /** Each of `rows` from `from` on read as another kind than `kind`: the caller knows none surely is one. */
  static noneOf(rows: readonly TrajectoryRowFact[], kind: RowKind, from = 0): RowReadings {
    return from >= rows.length ? RowReadings.asWritten : new RowReadings([{ rows, from, kind, read: 'not' }]);
  }

  /** Both readings at once. */
  and(other: RowReadings): RowReadings {
    if (other.clauses.length === 0) return this;
    if (this.clauses.length === 0) return other;
    return new RowReadings([...this.clauses, ...other.clauses]);
  }

  /** Whether every row is read as written. */
  get holdsAsWritten(): boolean {
    return this.rereads(1).length === 0;
  }

  /**
   * What a finding that holds under these readings adds after "This holds when": which rows are read
   * otherwise than written, and as what. Undefined when it holds as written.
   */
  get note(): string | undefined {
    const rereads = this.rereads(namedRows + 1);
    const [first, ...rest] = rereads.slice(0, namedRows);
    if (!first) return undefined;
    const words = [
      `the trajectory row on line ${first.line + 1}, whose type cannot be taken at its word, is read as ${kindWords[first.as]}`,
      ...rest.map((row) => `the one on line ${row.line + 1} as ${kindWords[row.as]}`),
      ...(rereads.length > namedRows ? ['more such rows otherwise than written'] : []),
    ];
    return words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
  }

  /** Up to `limit` rows read otherwise than written, in line order, each once (its first reading). */
  private rereads(limit: number): Reread[] {
    const found = new Map<number, RowKind>();
    for (const { rows, from, kind, read } of this.clauses) {
      for (let index = from; index < rows.length && found.size < limit; index++) {
        const kinds = rows[index]!.kinds;
        if (kinds === undefined || found.has(rows[index]!.ref.line)) continue;
        const as = read === 'as' ? kind : kinds.find((other) => other !== kind);
        if (as !== undefined && kinds[0] !== as && (read === 'as' || kinds[0] === kind))
          found.set(rows[index]!.ref.line, as);
      }
      if (found.size >= limit) break;
    }
    return [...found].map(([line, as]) => ({ line, as })).sort((a, b) => a.line - b.line);
  }
}

const kindWords: Readonly<Record<RowKind, string>> = {
  tool_call: 'a tool_call row',
  agent_timeout: 'an agent_timeout row',
  tool_call_lifecycle: 'a tool_call_lifecycle row',
  other: 'a row the rules pass over',
};

/** One way the trajectory's last agent_timeout row may be read: which row it is, or none. */
export interface MarkerReading {
  /** The last agent_timeout row in this reading; undefined when no row is read as one. */
  readonly marker: TimeoutFact | undefined;
  readonly rows: RowReadings;
}

/**
 * Every row that may be the trajectory's last agent_timeout row (the rules judge the last), each with
 * the readings that make it so (the later rows written as agent_timeout read otherwise), and no row at
 * all when none surely is one. As written first; without a trajectory, no row.
 */
export function lastTimeoutReadings(facts: TrajectoryFacts | undefined): readonly [MarkerReading, ...MarkerReading[]] {
  const candidates = facts?.timeouts ?? [];
  const written = candidates.filter((candidate) => writtenAs(candidate, 'agent_timeout'));
  const readings: MarkerReading[] = [];
  let later = 0;
  for (const marker of candidates) {
    while (later < written.length && written[later]!.ref.line <= marker.ref.line) later++;
    const rows = RowReadings.as(marker, 'agent_timeout').and(RowReadings.noneOf(written, 'agent_timeout', later));
    readings.push({ marker, rows });
  }
  const none: MarkerReading = { marker: undefined, rows: RowReadings.noneOf(written, 'agent_timeout') };
  if (candidates[0] === undefined || rowIs(candidates[0]) === 'maybe') readings.push(none);
  const writtenLast = written.at(-1);
  const asWritten = readings.find((reading) => reading.marker === writtenLast) ?? none;
  return [asWritten, ...readings.filter((reading) => reading !== asWritten)];
}
