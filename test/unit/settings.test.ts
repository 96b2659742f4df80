import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultSettings, sanitizeSettings } from '../../shared/src/settings';

describe('settings from the user', () => {
  it('default when absent or not an object', () => {
    for (const raw of [undefined, null, 'x', 3, []]) {
      const { settings, problems } = sanitizeSettings(raw);
      assert.deepEqual({ ...settings, artifacts: { ...settings.artifacts } }, defaultSettings);
      assert.deepEqual(problems, []);
    }
  });

  it('keep what is well formed and say what was ignored', () => {
    // Parsed, as settings files are: a literal would turn "__proto__" into a prototype instead of a key.
    const { settings, problems } = sanitizeSettings(
      JSON.parse(
        '{"maxNumberOfProblems":0,"artifacts":{"**/a.jsonl":"acp-trajectory","**/b.jsonl":"trajectory","":"result","__proto__":"result"}}',
      ),
    );
    assert.equal(settings.maxNumberOfProblems, defaultSettings.maxNumberOfProblems);
    assert.deepEqual(Object.entries(settings.artifacts), [
      ['**/a.jsonl', 'acp-trajectory'],
      ['__proto__', 'result'],
    ]);
    assert.deepEqual(
      problems.map((problem) => problem.setting),
      ['rolloutEvidence.maxNumberOfProblems', 'rolloutEvidence.artifacts', 'rolloutEvidence.artifacts'],
    );
    assert.match(problems[1]!.message, /"trajectory", which is not an artifact kind/);
  });

  it('opt in to the probe only with probe.trustedWorkspace true, and say what else was ignored', () => {
    assert.equal(defaultSettings.probeTrustedWorkspace, false);
    assert.equal(sanitizeSettings({ probe: { trustedWorkspace: true } }).settings.probeTrustedWorkspace, true);
    for (const value of ['true', 1, {}]) {
      const { settings, problems } = sanitizeSettings({ probe: { trustedWorkspace: value } });
      assert.equal(settings.probeTrustedWorkspace, false, JSON.stringify(value));
      assert.deepEqual(
        problems.map((problem) => problem.setting),
        ['rolloutEvidence.probe.trustedWorkspace'],
      );
    }
    assert.equal(sanitizeSettings({ probe: true }).settings.probeTrustedWorkspace, false);
  });

  it('take fixture folders only as a list of non-empty globs, else the default, saying so', () => {
    assert.deepEqual(sanitizeSettings({ fixtureFolders: ['**/my-fixtures/**'] }).settings.fixtureFolders, [
      '**/my-fixtures/**',
    ]);
    assert.deepEqual(
      sanitizeSettings({ fixtureFolders: [] }).settings.fixtureFolders,
      [],
      'an empty list: no folder is a fixture folder',
    );
    for (const value of ['**/x/**', [''], [3], {}]) {
      const { settings, problems } = sanitizeSettings({ fixtureFolders: value });
      assert.deepEqual(settings.fixtureFolders, defaultSettings.fixtureFolders, JSON.stringify(value));
      assert.deepEqual(
        problems.map((problem) => problem.setting),
        ['rolloutEvidence.fixtureFolders'],
      );
    }
  });

  it('accept a whole number of at least one', () => {
    assert.equal(sanitizeSettings({ maxNumberOfProblems: 7 }).settings.maxNumberOfProblems, 7);
    assert.equal(sanitizeSettings({ maxNumberOfProblems: 2.5 }).problems.length, 1);
    assert.equal(sanitizeSettings({ maxItemsComputed: 20 }).settings.maxItemsComputed, 20);
    const zero = sanitizeSettings({ maxItemsComputed: 0 });
    assert.equal(zero.settings.maxItemsComputed, defaultSettings.maxItemsComputed);
    assert.deepEqual(
      zero.problems.map((problem) => problem.setting),
      ['rolloutEvidence.maxItemsComputed'],
    );
  });
});
