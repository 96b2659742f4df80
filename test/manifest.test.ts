/** The manifest, README and code each say some of the same things; these tests keep them saying it alike. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { artifactKindNames, artifactKinds } from '../shared/src/layout';
import { probeSettingDefaults } from '../shared/src/probe';
import {
  defaultSettings,
  defaultTimeBudgetMs,
  defaultWorkspaceProblemsMaxRollouts,
  timeBudgetSetting,
  workspaceProblemsMaxRolloutsSetting,
} from '../shared/src/settings';
import { commandIds } from '../client/src/commandIds';
import { repoRoot } from './support/repo';

interface Manifest {
  main: string;
  capabilities: { untrustedWorkspaces: { supported: boolean | 'limited' } };
  activationEvents: string[];
  contributes: {
    commands: { command: string; title: string; category: string }[];
    configuration: { properties: Record<string, { default?: unknown; additionalProperties?: { enum?: string[] } }> };
    jsonValidation: { fileMatch: string[]; url: string }[];
  };
}

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

describe('manifest', () => {
  it('contributes a documentation-only JSON schema for every JSON artifact pattern, through VS Code’s jsonValidation', () => {
    const contributed = manifest.contributes.jsonValidation.flatMap((entry) =>
      entry.fileMatch.map((pattern) => `${pattern} -> ${entry.url}`),
    );
    const expected = artifactKinds
      .filter((info) => info.format === 'json')
      .flatMap((info) => info.patterns.map((pattern) => `${pattern} -> ./dist/schemas/${info.schemaFile}`));
    assert.deepEqual(contributed.sort(), expected.sort());
  });

  it('activates on JSONL and on workspaces holding rollout artifacts', () => {
    assert.ok(manifest.activationEvents.includes('onLanguage:jsonl'));
    for (const event of manifest.activationEvents.filter((e) => e.startsWith('workspaceContains:'))) {
      const pattern = event.slice('workspaceContains:'.length);
      assert.ok(
        artifactKinds.some((info) => info.patterns.includes(pattern)),
        `${pattern} is an artifact pattern`,
      );
    }
  });

  it('contributes exactly the commands the client registers, each in our category', () => {
    assert.deepEqual(manifest.contributes.commands.map((c) => c.command).sort(), Object.values(commandIds).sort());
    for (const command of manifest.contributes.commands) assert.equal(command.category, 'Rollout Evidence');
  });

  it('declares settings with the defaults the server uses', () => {
    const properties = manifest.contributes.configuration.properties;
    assert.equal(properties['rolloutEvidence.maxNumberOfProblems']!.default, defaultSettings.maxNumberOfProblems);
    assert.equal(properties['rolloutEvidence.maxItemsComputed']!.default, defaultSettings.maxItemsComputed);
    assert.deepEqual(properties['rolloutEvidence.artifacts']!.default, defaultSettings.artifacts);
    assert.deepEqual(properties['rolloutEvidence.artifacts']!.additionalProperties!.enum, [...artifactKindNames]);
    assert.equal(properties['rolloutEvidence.inlayHints.elapsedTime']!.default, defaultSettings.elapsedTimeHints);
    assert.equal(properties['rolloutEvidence.probe.trustedWorkspace']!.default, defaultSettings.probeTrustedWorkspace);
    assert.deepEqual(properties['rolloutEvidence.fixtureFolders']!.default, defaultSettings.fixtureFolders);
    // A workspace that is not trusted must not be able to make authored records count as evidence.
    const restricted = (manifest as { capabilities: { untrustedWorkspaces: { restrictedConfigurations?: string[] } } })
      .capabilities.untrustedWorkspaces.restrictedConfigurations;
    assert.ok(restricted?.includes('rolloutEvidence.fixtureFolders'), JSON.stringify(restricted));
    assert.equal(properties[`rolloutEvidence.${timeBudgetSetting}`]!.default, defaultTimeBudgetMs);
    assert.equal(
      properties[`rolloutEvidence.${workspaceProblemsMaxRolloutsSetting}`]!.default,
      defaultWorkspaceProblemsMaxRollouts,
    );
    for (const [key, value] of Object.entries(probeSettingDefaults))
      assert.deepEqual(properties[`rolloutEvidence.probe.${key}`]?.default, value, key);
  });

  it('declares limited support for untrusted workspaces: the probe runs only in trusted ones', () => {
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
  });
});

describe('README', () => {
  it('shows the quick start commands and every setting', () => {
    assert.ok(readme.includes('npm ci && npm start'));
    assert.ok(readme.includes('npm test'));
    for (const setting of Object.keys(manifest.contributes.configuration.properties))
      assert.ok(readme.includes(`\`${setting}\``), setting);
  });
});
