/**
 * media/timeline.js and media/timeline.css in headless Chromium, in the page the extension builds, under
 * its content security policy. The page is served from a made-up origin by request interception (no
 * network), and `acquireVsCodeApi` is a stub that records what the view posts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { timelinePageHtml } from '../../client/src/timeline/timelineHtml';
import type { TimelinePicture, TimelineViewMessage } from '../../shared/src/timelinePicture';
import { repoRoot } from '../support/repo';

const origin = 'https://timeline.webview.test';

// The page side, for the functions that run in the browser: the test project has no DOM library.
interface PageEvent {
  readonly detail?: { readonly drawn: number };
  readonly violatedDirective?: string;
  readonly blockedURI?: string;
}
interface PageWindow {
  posted: TimelineViewMessage[];
  violations: string[];
  acquireVsCodeApi: () => unknown;
  postMessage(message: unknown, targetOrigin: string): void;
}
declare const window: PageWindow;
declare const document: {
  addEventListener(type: string, listener: (event: PageEvent) => void, options?: { once: boolean }): void;
  readonly documentElement: { readonly style: { setProperty(name: string, value: string): void } };
};
declare function requestAnimationFrame(callback: () => void): number;

const darkTheme: Readonly<Record<string, string>> = {
  foreground: '#cccccc',
  'editor-background': '#1f1f1f',
  'font-family': 'system-ui, sans-serif',
  'font-size': '13px',
  descriptionForeground: '#9d9d9d',
  focusBorder: '#0078d4',
  'panel-border': '#2b2b2b',
  'textBlockQuote-background': '#2b2b2b',
  'editorInfo-foreground': '#3794ff',
  'editorWarning-foreground': '#cca700',
  'editorError-foreground': '#f85149',
  'button-secondaryForeground': '#cccccc',
  'button-secondaryBackground': '#313131',
  'button-secondaryHoverBackground': '#3c3c3c',
  'charts-blue': '#3794ff',
  'charts-green': '#89d185',
  'charts-orange': '#d18616',
  'charts-red': '#f14c4c',
  'charts-purple': '#b180d7',
  'charts-yellow': '#cca700',
  'charts-foreground': '#cccccc',
  'charts-lines': '#cccccc80',
  'terminal-ansiCyan': '#11a8cd',
  'terminal-ansiMagenta': '#bc3fbc',
  'terminal-ansiBrightBlack': '#666666',
  disabledForeground: '#6e7681',
};

export interface TimelinePage {
  readonly page: Page;
  /** Posts a picture as the extension does; resolves once it is drawn and painted, with the time that took. */
  readonly show: (picture: TimelinePicture) => Promise<{ readonly milliseconds: number; readonly drawn: number }>;
  readonly posted: () => Promise<TimelineViewMessage[]>;
  /** Content security policy violations the page reported. */
  readonly violations: () => Promise<string[]>;
  readonly close: () => Promise<void>;
}

export async function openTimelinePage(): Promise<TimelinePage> {
  const executablePath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`Chromium is not installed at ${executablePath}: install the Debian package "chromium", or set CHROMIUM_PATH.`);
  const browser: Browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 700 } });
    const html = timelinePageHtml({ cspSource: origin, scriptUri: `${origin}/media/timeline.js`, styleUri: `${origin}/media/timeline.css`, nonce: 'dGVzdC1ub25jZQ' });
    await page.route(`${origin}/**`, (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/') return route.fulfill({ contentType: 'text/html', body: html });
      if (path === '/media/timeline.js' || path === '/media/timeline.css') {
        return route.fulfill({ contentType: path.endsWith('.js') ? 'text/javascript' : 'text/css', body: readFileSync(join(repoRoot, path), 'utf8') });
      }
      return route.fulfill({ status: 404, body: '' });
    });
    // Injected by the browser before any page script, outside the page's policy, as VS Code provides it.
    await page.addInitScript((theme: Readonly<Record<string, string>>) => {
      const record = window;
      record.posted = [];
      record.violations = [];
      record.acquireVsCodeApi = () => ({ postMessage: (message: TimelineViewMessage) => record.posted.push(message), getState: () => undefined, setState: () => undefined });
      // VS Code sets its theme's colours on the page's root element; these are Dark Modern's.
      document.addEventListener('DOMContentLoaded', () => {
        for (const [name, value] of Object.entries(theme)) document.documentElement.style.setProperty(`--vscode-${name}`, value);
      });
      document.addEventListener('securitypolicyviolation', (event) => record.violations.push(`${event.violatedDirective ?? ''} ${event.blockedURI ?? ''}`));
    }, darkTheme);
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => window.posted.some((message) => message.type === 'ready'));
    return {
      page,
      show: (picture) =>
        page.evaluate(
          (next) =>
            new Promise<{ milliseconds: number; drawn: number }>((resolve) => {
              const started = performance.now();
              document.addEventListener(
                'timeline-rendered',
                (event) => {
                  const drawn = event.detail?.drawn ?? 0;
                  // The next frame after the one that drew it: the picture is on screen.
                  requestAnimationFrame(() => setTimeout(() => resolve({ milliseconds: performance.now() - started, drawn }), 0));
                },
                { once: true },
              );
              window.postMessage({ type: 'picture', picture: next }, '*');
            }),
          picture,
        ),
      posted: () => page.evaluate(() => window.posted),
      violations: () => page.evaluate(() => window.violations),
      close: () => browser.close(),
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
