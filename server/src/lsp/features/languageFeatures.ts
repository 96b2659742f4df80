/**
 * The language features beyond diagnostics, registered together: outline and folding, hover,
 * navigation between ids, the verdict code lens, elapsed-time inlay hints, completion and quick fixes.
 */
import {
  CodeActionKind,
  CodeLensRefreshRequest,
  type ClientCapabilities,
  type Connection,
  type ServerCapabilities,
  type TextDocuments,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentValidator } from '../documentValidator';
import type { SettingsCache } from '../settingsCache';
import { ArtifactDocuments } from './artifactDocuments';
import { registerAuthoring } from './authoring';
import { registerCodeLens } from './codeLens';
import { registerHover } from './hover';
import { registerInlayHints } from './inlayHints';
import { registerNavigation } from './navigation';
import { OutlineProvider } from './outline';

/** How long refreshes of lenses and hints are gathered into one. */
const refreshDelayMs = 200;

export interface LanguageFeatures {
  readonly capabilities: ServerCapabilities;
  /** A rollout's evaluation changed: what the lenses and hints of its other documents say may have too. */
  readonly rolloutChanged: () => void;
}

export function registerLanguageFeatures(
  connection: Connection,
  documents: TextDocuments<TextDocument>,
  validator: DocumentValidator,
  settings: SettingsCache,
  client: ClientCapabilities,
): LanguageFeatures {
  const artifacts = new ArtifactDocuments(documents, validator, settings);
  new OutlineProvider(artifacts).register(connection);
  registerHover(connection, artifacts);
  registerNavigation(connection, artifacts);
  registerCodeLens(connection, artifacts);
  registerInlayHints(connection, artifacts);
  registerAuthoring(connection, artifacts);

  let refreshTimer: NodeJS.Timeout | undefined;
  const canRefreshLenses = client.workspace?.codeLens?.refreshSupport === true;
  const canRefreshHints = client.workspace?.inlayHint?.refreshSupport === true;
  return {
    capabilities: {
      documentSymbolProvider: { label: 'Rollout Evidence' },
      foldingRangeProvider: true,
      hoverProvider: true,
      definitionProvider: true,
      referencesProvider: true,
      documentHighlightProvider: true,
      codeLensProvider: { resolveProvider: false },
      inlayHintProvider: { resolveProvider: false },
      completionProvider: { triggerCharacters: ['"', ':', '{', ','] },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
    },
    // Coalesced: editing one file re-evaluates its rollout once per keystroke, and each open file of it.
    rolloutChanged: () => {
      if (refreshTimer) return;
      refreshTimer = setTimeout(() => {
        refreshTimer = undefined;
        if (canRefreshLenses) void connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
        if (canRefreshHints) void connection.languages.inlayHint.refresh().catch(() => undefined);
      }, refreshDelayMs);
    },
  };
}
