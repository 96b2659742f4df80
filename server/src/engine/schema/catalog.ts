/**
 * The JSON Schemas of `schemas/`, bundled into the server and the CLI so that both validate with exactly
 * the files the extension contributes to VS Code.
 */
import type { ArtifactKind } from '../../../../shared/src/layout';
import acpTrajectoryRow from '../../../../schemas/acp-trajectory-row.schema.json';
import actionRecord from '../../../../schemas/action-record.schema.json';
import config from '../../../../schemas/config.schema.json';
import llmExchangeRow from '../../../../schemas/llm-exchange-row.schema.json';
import preflight from '../../../../schemas/preflight.schema.json';
import result from '../../../../schemas/result.schema.json';
import resultsRow from '../../../../schemas/results-row.schema.json';
import rewardsRow from '../../../../schemas/rewards-row.schema.json';
import timing from '../../../../schemas/timing.schema.json';

export const schemaByKind: Readonly<Record<ArtifactKind, object>> = {
  'acp-trajectory': acpTrajectoryRow,
  'llm-trajectory': llmExchangeRow,
  results: resultsRow,
  rewards: rewardsRow,
  'action-records': actionRecord,
  result,
  config,
  preflight,
  timing,
};
