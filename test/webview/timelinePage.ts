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
  readonly documentElement: {
    readonly style: Iterable<string> & {
      setProperty(name: string, value: string): void;
      removeProperty(name: string): void;
    };
  };
};
declare function requestAnimationFrame(callback: () => void): number;

/** A theme as VS Code hands it to a webview: its colours as `--vscode-*` variables, by name without the prefix. */
export type WebviewTheme = Readonly<Record<string, string>>;

const font = { 'font-family': 'system-ui, sans-serif', 'font-size': '13px' };

/**
 * The colours the view uses in VS Code's four kinds of default theme, as its colour registry and the
 * theme-defaults extension resolve them. A colour a theme leaves undefined is absent, as VS Code leaves
 * its variable out: charts.orange, which high-contrast themes do not define, is absent there.
 */
export const themes: Readonly<
  Record<'darkModern' | 'lightModern' | 'highContrastDark' | 'highContrastLight', WebviewTheme>
> = {
  darkModern: {
    ...font,
    foreground: '#cccccc',
    'editor-background': '#1f1f1f',
    descriptionForeground: '#9d9d9d',
    focusBorder: '#0078d4',
    'panel-border': '#2b2b2b',
    'widget-border': '#313131',
    'textBlockQuote-background': '#2b2b2b',
    'editorInfo-foreground': '#59a4f9',
    'editorWarning-foreground': '#cca700',
    'editorError-foreground': '#f14c4c',
    'button-secondaryForeground': '#cccccc',
    'button-secondaryBackground': '#00000000',
    'button-secondaryHoverBackground': '#2b2b2b',
    'charts-foreground': '#cccccc',
    'charts-lines': '#cccccc80',
    'charts-blue': '#59a4f9',
    'charts-green': '#89d185',
    'charts-orange': '#ea5c0055',
    'charts-red': '#f14c4c',
    'charts-purple': '#b180d7',
    'charts-yellow': '#cca700',
    'terminal-ansiYellow': '#e5e510',
    'terminal-ansiCyan': '#11a8cd',
    'terminal-ansiMagenta': '#bc3fbc',
    'terminal-ansiBrightGreen': '#23d18b',
  },
  lightModern: {
    ...font,
    foreground: '#3b3b3b',
    'editor-background': '#ffffff',
    descriptionForeground: '#3b3b3b',
    focusBorder: '#005fb8',
    'panel-border': '#e5e5e5',
    'widget-border': '#e5e5e5',
    'textBlockQuote-background': '#f8f8f8',
    'editorInfo-foreground': '#0063d3',
    'editorWarning-foreground': '#bf8803',
    'editorError-foreground': '#e51400',
    'button-secondaryForeground': '#3b3b3b',
    'button-secondaryBackground': '#e5e5e5',
    'button-secondaryHoverBackground': '#cccccc',
    'charts-foreground': '#3b3b3b',
    'charts-lines': '#3b3b3b80',
    'charts-blue': '#0063d3',
    'charts-green': '#388a34',
    'charts-orange': '#ea5c0055',
    'charts-red': '#e51400',
    'charts-purple': '#652d90',
    'charts-yellow': '#bf8803',
    'terminal-ansiYellow': '#949800',
    'terminal-ansiCyan': '#0598bc',
    'terminal-ansiMagenta': '#bc05bc',
    'terminal-ansiBrightGreen': '#14ce14',
  },
  highContrastDark: {
    ...font,
    foreground: '#ffffff',
    'editor-background': '#000000',
    descriptionForeground: '#ffffffb3',
    focusBorder: '#f38518',
    contrastActiveBorder: '#f38518',
    'panel-border': '#6fc3df',
    'widget-border': '#6fc3df',
    'editorInfo-foreground': '#59a4f9',
    'editorWarning-foreground': '#ffd370',
    'editorError-foreground': '#f48771',
    'button-secondaryForeground': '#ffffff',
    'charts-foreground': '#ffffff',
    'charts-lines': '#ffffff80',
    'charts-blue': '#59a4f9',
    'charts-green': '#89d185',
    'charts-red': '#f48771',
    'charts-purple': '#b180d7',
    'charts-yellow': '#ffd370',
    'terminal-ansiYellow': '#cdcd00',
    'terminal-ansiCyan': '#00cdcd',
    'terminal-ansiMagenta': '#cd00cd',
    'terminal-ansiBrightGreen': '#00ff00',
  },
  highContrastLight: {
    ...font,
    foreground: '#292929',
    'editor-background': '#ffffff',
    descriptionForeground: '#292929b3',
    focusBorder: '#006bbd',
    contrastActiveBorder: '#006bbd',
    'panel-border': '#0f4a85',
    'widget-border': '#0f4a85',
    'textBlockQuote-background': '#f2f2f2',
    'editorInfo-foreground': '#0063d3',
    'editorWarning-foreground': '#895503',
    'editorError-foreground': '#b5200d',
    'button-secondaryForeground': '#292929',
    'button-secondaryBackground': '#ffffff',
    'charts-foreground': '#292929',
    'charts-lines': '#29292980',
    'charts-blue': '#0063d3',
    'charts-green': '#374e06',
    'charts-red': '#b5200d',
    'charts-purple': '#652d90',
    'charts-yellow': '#895503',
    'terminal-ansiYellow': '#949800',
    'terminal-ansiCyan': '#0598bc',
    'terminal-ansiMagenta': '#bc05bc',
    'terminal-ansiBrightGreen': '#00bc00',
  },
};

export interface TimelinePage {
  readonly page: Page;
  /** Posts a picture as the extension does; resolves once it is drawn and painted, with the time that took. */
  readonly show: (picture: TimelinePicture) => Promise<{ readonly milliseconds: number; readonly drawn: number }>;
  readonly posted: () => Promise<TimelineViewMessage[]>;
  /** Puts the page in another theme, as VS Code does when the user switches: every variable replaced. */
  readonly setTheme: (theme: WebviewTheme) => Promise<void>;
  /** Content security policy violations the page reported. */
  readonly violations: () => Promise<string[]>;
  readonly close: () => Promise<void>;
}

export async function openTimelinePage(): Promise<TimelinePage> {
  const executablePath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  if (!existsSync(executablePath))
    throw new Error(
      `Chromium is not installed at ${executablePath}: install the Debian package "chromium", or set CHROMIUM_PATH.`,
    );
  const browser: Browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 700 } });
    const html = timelinePageHtml({
      cspSource: origin,
      scriptUri: `${origin}/media/timeline.js`,
      styleUri: `${origin}/media/timeline.css`,
      nonce: 'dGVzdC1ub25jZQ',
    });
    await page.route(`${origin}/**`, (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/') return route.fulfill({ contentType: 'text/html', body: html });
      if (path === '/media/timeline.js' || path === '/media/timeline.css') {
        return route.fulfill({
          contentType: path.endsWith('.js') ? 'text/javascript' : 'text/css',
          body: readFileSync(join(repoRoot, path), 'utf8'),
        });
      }
      return route.fulfill({ status: 404, body: '' });
    });
    // Injected by the browser before any page script, outside the page's policy, as VS Code provides it.
    await page.addInitScript((theme: Readonly<Record<string, string>>) => {
      const record = window;
      record.posted = [];
      record.violations = [];
      record.acquireVsCodeApi = () => ({
        postMessage: (message: TimelineViewMessage) => record.posted.push(message),
        getState: () => undefined,
        setState: () => undefined,
      });
      // VS Code sets its theme's colours on the page's root element; Dark Modern's to begin with.
      document.addEventListener('DOMContentLoaded', () => {
        for (const [name, value] of Object.entries(theme))
          document.documentElement.style.setProperty(`--vscode-${name}`, value);
      });
      document.addEventListener('securitypolicyviolation', (event) =>
        record.violations.push(`${event.violatedDirective ?? ''} ${event.blockedURI ?? ''}`),
      );
    }, themes.darkModern);
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
                  requestAnimationFrame(() =>
                    setTimeout(() => resolve({ milliseconds: performance.now() - started, drawn }), 0),
                  );
                },
                { once: true },
              );
              window.postMessage({ type: 'picture', picture: next }, '*');
            }),
          picture,
        ),
      posted: () => page.evaluate(() => window.posted),
      setTheme: (theme) =>
        page.evaluate((next) => {
          const style = document.documentElement.style;
          for (const name of Array.from(style).filter((property) => property.startsWith('--vscode-')))
            style.removeProperty(name);
          for (const [name, value] of Object.entries(next)) style.setProperty(`--vscode-${name}`, value);
        }, theme),
      violations: () => page.evaluate(() => window.violations),
      close: () => browser.close(),
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
