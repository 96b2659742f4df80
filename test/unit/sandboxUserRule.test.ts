/**
 * One rule for what a sandbox user is: the probe refuses a user (shared/src/probe.ts) exactly when the
 * engine cannot read config.json's sandbox_user as one. Before, the engine read "0" (root) and an 11-digit
 * uid as users the rules could trust a proof for, while the probe refused to observe them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isSandboxUserName, sandboxUserProblem } from '../../shared/src/probe';
import { listedFindings } from '../../server/src/engine/checkRollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { fixtures } from '../fixtures/definitions';
import { writeTree } from '../support/files';
import { temporaryFolder } from '../support/repo';
import { checkRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());
const healthy = fixtures.find((fixture) => fixture.name === 'healthy')!;
const checker = new ArtifactChecker();

/** The messages of the rollout whose config.json names `user` as its sandbox user. */
function messagesFor(user: string): string[] {
  const root = join(folder.path, encodeURIComponent(user) || 'empty');
  const config = JSON.parse(healthy.files['config.json']!) as Record<string, unknown>;
  writeTree(root, { ...healthy.files, 'config.json': JSON.stringify({ ...config, sandbox_user: user }, null, 2) });
  const checked = checkRollout(root, checker, {
    maxFindings: 1000,
    rules: defaultRuleOptions,
    caches: new ModelCaches(),
  });
  return listedFindings(checked, 1000).findings.map((finding) => finding.message);
}

describe('the sandbox user, as the probe and the engine read it', () => {
  for (const user of ['bob', '1001', '0', '000', '12345678901', 'Bob', 'pgrep -u agent']) {
    const accepted = isSandboxUserName(user);
    it(`${JSON.stringify(user)}: ${accepted ? 'a user to both' : 'no user to either'}`, () => {
      const messages = messagesFor(user);
      // Read as a user, the healthy rollout's observation of uid 1001 proves it or a finding names it;
      // read as no user, the observation of that uid proves nothing, since which user is set is unknown.
      const readAsUser = !messages.some((message) =>
        message.startsWith('A sandbox user is set, but which one is unknown'),
      );
      assert.equal(readAsUser, accepted, messages.join('\n'));
    });
  }
  it('a value nested past what JSON.stringify can walk is no user, and no crash (fuzz seed 20261201)', () => {
    let deep: unknown = 'agent';
    for (let depth = 0; depth < 100_000; depth++) deep = [deep];
    assert.equal(isSandboxUserName(deep), false);
    assert.match(sandboxUserProblem(deep)!, /not a value of type object$/);
  });

  it('near miss: root and a uid past 32 bits are the ones the probe refuses, a plain uid it accepts', () => {
    assert.deepEqual(
      ['0', '12345678901', '1001'].map((user) => isSandboxUserName(user)),
      [false, false, true],
    );
  });
});
