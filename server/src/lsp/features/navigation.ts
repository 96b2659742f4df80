/**
 * Go to definition, find references and document highlights for tool call ids and action ids, across
 * the files of the document's rollout.
 */
import {
  DefinitionRequest,
  DocumentHighlightKind,
  DocumentHighlightRequest,
  ReferencesRequest,
  type CancellationToken,
  type Connection,
  type DocumentHighlight,
  type Location,
  type Position,
} from 'vscode-languageserver/node';
import { idAt, idOccurrences, type IdOccurrence } from '../../engine/inspect/ids';
import { referenceParams, textDocumentPositionParams } from '../requestParams';
import { uriOfPath, type ArtifactDocuments } from './artifactDocuments';
import { featureRequest } from './featureRequest';
import { recordAt } from './recordAt';

export function registerNavigation(connection: Connection, artifacts: ArtifactDocuments): void {
  const occurrencesAt = async (
    uri: string,
    position: Position,
    token: CancellationToken,
    acrossRollout: boolean,
  ): Promise<{ path: string; occurrences: IdOccurrence[] } | undefined> => {
    const artifact = await artifacts.get(uri, token);
    if (!artifact) return undefined;
    const record = recordAt(artifact.document, artifact.kind, position);
    const id = idAt(record.text, record.offset, record.lines);
    if (!id) return undefined;
    const sources = acrossRollout
      ? artifacts.sourcesOf(artifact)
      : [{ path: artifact.path, kind: artifact.kind, text: artifact.document.getText() }];
    const occurrences = idOccurrences(sources, id.id, id.role);
    return token.isCancellationRequested ? undefined : { path: artifact.path, occurrences };
  };
  const toLocation = (occurrence: IdOccurrence): Location => ({
    uri: uriOfPath(occurrence.file),
    range: occurrence.range,
  });

  connection.onRequest(
    DefinitionRequest.type,
    featureRequest(connection.console, 'Go to Definition', textDocumentPositionParams, async (params, token) => {
      const found = await occurrencesAt(params.textDocument.uri, params.position, token, true);
      if (!found) return null;
      const definitions = found.occurrences.filter((occurrence) => occurrence.definition);
      return definitions.length > 0 ? definitions.map(toLocation) : null;
    }),
  );
  connection.onRequest(
    ReferencesRequest.type,
    featureRequest(connection.console, 'Find All References', referenceParams, async (params, token) => {
      const found = await occurrencesAt(params.textDocument.uri, params.position, token, true);
      if (!found) return null;
      return found.occurrences
        .filter((occurrence) => params.context.includeDeclaration || !occurrence.definition)
        .map(toLocation);
    }),
  );
  connection.onRequest(
    DocumentHighlightRequest.type,
    featureRequest(
      connection.console,
      'Highlights',
      textDocumentPositionParams,
      async (params, token): Promise<DocumentHighlight[] | null> => {
        const found = await occurrencesAt(params.textDocument.uri, params.position, token, false);
        if (!found) return null;
        return found.occurrences.map((occurrence) => ({
          range: occurrence.range,
          kind: occurrence.definition ? DocumentHighlightKind.Write : DocumentHighlightKind.Read,
        }));
      },
    ),
  );
}
