/**
 * The language status item: the truth about the server (starting, running, stopped) and what the last
 * validation of the active file cost and found.
 */
import * as vscode from 'vscode';
import type { ValidationReport } from '../../shared/src/protocol';
import { defaultTimeBudgetMs, settingsSection, timeBudgetSetting } from '../../shared/src/settings';
import { commandIds } from './commandIds';

export type ServerState = 'starting' | 'running' | 'stopped';

export class ServerStatus implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;
  private readonly reports = new Map<string, ValidationReport>();
  private state: ServerState = 'starting';
  private failure: string | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor() {
    // No document until the server controller, starting a client, gives the selector it computed.
    this.item = vscode.languages.createLanguageStatusItem('rolloutEvidence.status', []);
    this.item.name = 'Rollout Evidence';
    this.subscriptions.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.render()),
      vscode.workspace.onDidCloseTextDocument((document) => this.reports.delete(document.uri.toString())),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${settingsSection}.${timeBudgetSetting}`)) this.render();
      }),
    );
    this.render();
  }

  /** The selector follows the user's artifact patterns, which can change while the extension runs: each start sets it. */
  set selector(selector: vscode.DocumentSelector) {
    this.item.selector = selector;
  }

  setState(state: ServerState, failure?: string): void {
    this.state = state;
    this.failure = failure;
    this.render();
  }

  recordValidation(report: ValidationReport): void {
    this.reports.set(report.uri, report);
    this.render();
  }

  dispose(): void {
    this.item.dispose();
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  private render(): void {
    const item = this.item;
    item.busy = this.state === 'starting';
    if (this.state !== 'running') {
      item.severity =
        this.state === 'stopped' ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
      item.text = this.state === 'stopped' ? 'Rollout Evidence: server stopped' : 'Rollout Evidence: starting…';
      item.detail = this.failure;
      item.command = this.state === 'stopped' ? { title: 'Restart', command: commandIds.restartServer } : undefined;
      return;
    }
    item.command = { title: 'Show Output', command: commandIds.showOutput };
    const uri = vscode.window.activeTextEditor?.document.uri.toString();
    const report = uri ? this.reports.get(uri) : undefined;
    if (!report) {
      item.severity = vscode.LanguageStatusSeverity.Information;
      item.text = 'Rollout Evidence';
      item.detail = 'not validated yet';
      return;
    }
    const budget = timeBudgetMs(vscode.window.activeTextEditor?.document.uri);
    const overBudget = report.kind !== null && report.durationMs > budget;
    item.severity = overBudget
      ? maxSeverity(verdictSeverity(report.verdict), vscode.LanguageStatusSeverity.Warning)
      : verdictSeverity(report.verdict);
    const verdictText = report.verdict ? `Rollout: ${report.verdict}` : 'Rollout Evidence';
    item.text = report.kind
      ? `${verdictText} · ${formatDuration(report.durationMs)}${overBudget ? ' (slow)' : ''}`
      : verdictText;
    const problems = `${report.problemCount} problem${report.problemCount === 1 ? '' : 's'}`;
    const omitted = report.omittedCount > 0 ? ` (+${report.omittedCount} not listed)` : '';
    const where = report.verdict
      ? 'verdict of the rollout this file belongs to'
      : report.kind
        ? report.kind
        : 'not a rollout artifact';
    const slow = overBudget
      ? ` · over the ${formatDuration(budget)} budget (${settingsSection}.${timeBudgetSetting})`
      : '';
    item.detail = report.kind
      ? `${where} · ${problems} in this file${omitted} · validated in ${formatDuration(report.durationMs)}${slow}`
      : where;
  }
}

function timeBudgetMs(scope: vscode.Uri | undefined): number {
  const value = vscode.workspace.getConfiguration(settingsSection, scope).get<unknown>(timeBudgetSetting);
  return typeof value === 'number' && value > 0 ? value : defaultTimeBudgetMs;
}

function maxSeverity(
  a: vscode.LanguageStatusSeverity,
  b: vscode.LanguageStatusSeverity,
): vscode.LanguageStatusSeverity {
  return a > b ? a : b;
}

function verdictSeverity(verdict: string | null): vscode.LanguageStatusSeverity {
  if (verdict === 'untrusted') return vscode.LanguageStatusSeverity.Error;
  if (verdict === 'incomplete') return vscode.LanguageStatusSeverity.Warning;
  return vscode.LanguageStatusSeverity.Information;
}

function formatDuration(milliseconds: number): string {
  return milliseconds < 1000 ? `${Math.max(1, Math.round(milliseconds))} ms` : `${(milliseconds / 1000).toFixed(1)} s`;
}
