/**
 * The timeline webview's page: a fixed shell that media/timeline.js fills in. The content security
 * policy allows only the extension's own style sheet and the one script carrying this page's nonce; no
 * remote resource, no inline script or style markup. Kept free of `vscode` so a browser test loads the
 * very same page.
 */
export interface TimelinePageSources {
  /** The webview's `cspSource`. */
  readonly cspSource: string;
  readonly scriptUri: string;
  readonly styleUri: string;
  /** Fresh for every page. */
  readonly nonce: string;
}

export function timelinePageHtml({ cspSource, scriptUri, styleUri, nonce }: TimelinePageSources): string {
  const policy = [
    `default-src 'none'`,
    `style-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${cspSource}`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(policy)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttribute(styleUri)}">
<title>Rollout Timeline</title>
</head>
<body>
<header>
<h1 id="title">Timeline</h1>
<p id="summary">Loading the rollout…</p>
<ul id="notices" role="status" aria-live="polite"></ul>
<div class="toolbar" role="toolbar" aria-label="Zoom">
<button type="button" id="zoom-in" aria-keyshortcuts="+" title="Zoom in (+)">Zoom in</button>
<button type="button" id="zoom-out" aria-keyshortcuts="-" title="Zoom out (-)">Zoom out</button>
<button type="button" id="zoom-reset" aria-keyshortcuts="0" title="Whole rollout (0)">Whole rollout</button>
</div>
</header>
<main aria-label="Rollout timeline: arrow keys move between elements, Enter opens an element's line, + and - zoom">
<div id="scale" aria-hidden="true"></div>
<div id="lanes"></div>
</main>
<ul id="legend" aria-label="Legend"></ul>
<script nonce="${escapeAttribute(nonce)}" src="${escapeAttribute(scriptUri)}"></script>
</body>
</html>
`;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
