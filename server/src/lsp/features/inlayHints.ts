/**
 * Inlay hints after each timestamp of a JSONL artifact: the time since the rollout started, as its model
 * reads it (model/rolloutStart.ts: the config's or result.json's started_at, else the first timestamped action). Off unless
 * `rolloutEvidence.inlayHints.elapsedTime` is on: on a long action log they are many.
 */
import { InlayHintKind, InlayHintRequest, type Connection, type InlayHint } from 'vscode-languageserver/node';
import { artifactKindInfo } from '../../../../shared/src/layout';
import { parseTimestamp } from '../../engine/parse/timestamps';
import { textDocumentRangeParams } from '../requestParams';
import type { ArtifactDocuments } from './artifactDocuments';
import { featureRequest } from './featureRequest';

/** The first of these in a record is the one hinted: when the record's action started, else happened. */
const timestampPattern = /"(started_at|timestamp|observed_at|created_at|finished_at)"\s*:\s*"([^"\\]{10,40})"/;

export function registerInlayHints(connection: Connection, artifacts: ArtifactDocuments): void {
  connection.onRequest(
    InlayHintRequest.type,
    featureRequest(
      connection.console,
      'Inlay hints',
      textDocumentRangeParams,
      async (params, token): Promise<InlayHint[] | null> => {
        const settings = await artifacts.settings.get(params.textDocument.uri);
        if (!settings.elapsedTimeHints) return null;
        const artifact = await artifacts.get(params.textDocument.uri, token);
        if (!artifact?.rollout || artifactKindInfo(artifact.kind).format !== 'jsonl') return null;
        const start = artifact.rollout.evaluation.model.start;
        if (!start) return null;
        const hints: InlayHint[] = [];
        const lastLine = Math.min(params.range.end.line, artifact.document.lineCount - 1);
        for (let line = params.range.start.line; line <= lastLine; line++) {
          const text = artifact.document.getText({
            start: { line, character: 0 },
            end: { line: line + 1, character: 0 },
          });
          const match = timestampPattern.exec(text);
          const time = match ? parseTimestamp(match[2]) : undefined;
          if (!match || time === undefined) continue;
          hints.push({
            position: { line, character: match.index + match[0].length },
            label: formatElapsed(time - start.time),
            kind: InlayHintKind.Parameter,
            paddingLeft: true,
            tooltip: `${match[1]} is ${formatElapsed(time - start.time)} after the rollout started (${start.source}).`,
          });
        }
        return token.isCancellationRequested ? null : hints;
      },
    ),
  );
}

function formatElapsed(milliseconds: number): string {
  const sign = milliseconds < 0 ? '−' : '+';
  const seconds = Math.abs(milliseconds) / 1000;
  if (seconds < 60) return `${sign}${seconds.toFixed(seconds < 10 ? 1 : 0)}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${sign}${minutes}m ${String(Math.floor(seconds % 60)).padStart(2, '0')}s`;
  return `${sign}${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}
