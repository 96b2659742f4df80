/**
 * How the Rollouts view sorts and which verdicts it shows: chosen by the user, kept per workspace.
 */
import * as vscode from 'vscode';
import { rolloutVerdicts, type RolloutVerdict } from '../../../shared/src/rollouts';

export const rolloutSorts = ['verdict', 'name', 'newest'] as const;

export type RolloutSort = (typeof rolloutSorts)[number];

export const sortLabels: Readonly<Record<RolloutSort, string>> = {
  verdict: 'by verdict, worst first',
  name: 'by name',
  newest: 'newest first',
};

export interface ViewOptions {
  readonly sort: RolloutSort;
  /** The verdicts shown; every one by default. */
  readonly verdicts: readonly RolloutVerdict[];
}

const sortKey = 'rolloutEvidence.rollouts.sort';
const verdictsKey = 'rolloutEvidence.rollouts.verdicts';

export class ViewOptionsStore {
  constructor(private readonly state: vscode.Memento) {}

  /** What is stored, with anything unreadable (an older version's values, say) replaced by the default. */
  get(): ViewOptions {
    const sort = this.state.get<unknown>(sortKey);
    const verdicts = this.state.get<unknown>(verdictsKey);
    return {
      sort: rolloutSorts.find((candidate) => candidate === sort) ?? 'verdict',
      verdicts: Array.isArray(verdicts)
        ? rolloutVerdicts.filter((verdict) => verdicts.includes(verdict))
        : rolloutVerdicts,
    };
  }

  async setSort(sort: RolloutSort): Promise<void> {
    await this.state.update(sortKey, sort);
  }

  async setVerdicts(verdicts: readonly RolloutVerdict[]): Promise<void> {
    await this.state.update(
      verdictsKey,
      rolloutVerdicts.filter((verdict) => verdicts.includes(verdict)),
    );
  }
}

/** A command argument naming verdicts (for scripts and tests), or undefined when it does not. */
export function verdictsArgument(argument: unknown): RolloutVerdict[] | undefined {
  if (!Array.isArray(argument)) return undefined;
  const known = rolloutVerdicts.filter((verdict) => argument.includes(verdict));
  return known.length === argument.length ? known : undefined;
}

export function sortArgument(argument: unknown): RolloutSort | undefined {
  return rolloutSorts.find((candidate) => candidate === argument);
}
