/**
 * The action kinds the rules know: this is their one home, below the facts that name records and the
 * model that reads them, so that both read a kind the same way. Both compare case-insensitively
 * (`SandboxExeC` is SandboxExec). The action-record schema leaves both open, because a newer BenchFlow
 * may write kinds this checker has not met and the schema must not drown such logs in noise; so a kind
 * outside these lists is reported by the rules (`action-kind-unknown`), which also read the record under
 * each known kind instead of skipping it.
 */
export const actionEventTypes = ['SandboxExec', 'StartBenchGuardVerifierService', 'SandboxUserQuiescence'] as const;
export const actionPhases = ['Setup', 'Agent', 'Harden', 'Verify'] as const;

export type ActionEventType = (typeof actionEventTypes)[number];
export type ActionPhase = (typeof actionPhases)[number];

const eventTypesByLowerCase = new Map<string, ActionEventType>(
  actionEventTypes.map((name) => [name.toLowerCase(), name]),
);
const phasesByLowerCase = new Map<string, ActionPhase>(actionPhases.map((name) => [name.toLowerCase(), name]));

/** The known event type `value` spells, in any case; undefined for any other value. */
export function actionEventTypeOf(value: unknown): ActionEventType | undefined {
  return typeof value === 'string' ? eventTypesByLowerCase.get(value.toLowerCase()) : undefined;
}

/** The known phase `value` spells, in any case; undefined for any other value. */
export function actionPhaseOf(value: unknown): ActionPhase | undefined {
  return typeof value === 'string' ? phasesByLowerCase.get(value.toLowerCase()) : undefined;
}
