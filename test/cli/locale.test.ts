/**
 * The order of rollouts in every output is the same whatever the locale the CLI runs in: Swedish
 * collation puts `å` after `z` and Turkish orders dotted and dotless `i` otherwise, which `localeCompare`
 * under LANG would follow, so shards made on differently set-up runners would not merge into one order.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { builtCli, healthyRollout, temporaryFolder } from '../support/repo';

const folder = temporaryFolder('rollout-evidence-locale-');
after(() => folder.remove());

function checkIn(locale: string, args: readonly string[]): string {
  const result = spawnSync(process.execPath, [builtCli, 'check', ...args], {
    cwd: folder.path,
    encoding: 'utf8',
    env: { ...process.env, LANG: locale, LC_ALL: locale },
  });
  assert.equal(result.error, undefined);
  assert.equal(result.stderr, '');
  return result.stdout;
}

describe('the order of rollouts', () => {
  it('does not depend on the locale the CLI runs in', () => {
    for (const name of [
      'zeta__1a2b3c4d',
      'åland__1a2b3c4d',
      'Istanbul__1a2b3c4d',
      'ırmak__1a2b3c4d',
      'alpha__1a2b3c4d',
    ])
      cpSync(healthyRollout, join(folder.path, 'jobs', name), { recursive: true });
    for (const format of ['json', 'text']) {
      const args = ['jobs', '--format', format, '--jobs', '1'];
      const reference = checkIn('C.UTF-8', args);
      const order = [...reference.matchAll(/jobs\/([^/\s"]+)__1a2b3c4d/g)].map((match) => match[1]);
      assert.deepEqual([...new Set(order)], ['åland', 'alpha', 'Istanbul', 'ırmak', 'zeta'], format);
      for (const locale of ['sv_SE.UTF-8', 'tr_TR.UTF-8']) assert.equal(checkIn(locale, args), reference, locale);
    }
  });
});
