import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Minimatch } from 'minimatch';
import { artifactKinds, artifactPatterns } from '../../shared/src/layout';
import { ArtifactClassifier } from '../../server/src/engine/artifacts/classify';

describe('artifact kinds by path', () => {
  const classifier = new ArtifactClassifier();

  it('follows the real BenchFlow layout', () => {
    const expectations: Record<string, string | undefined> = {
      '/jobs/j/r/trajectory/acp_trajectory.jsonl': 'acp-trajectory',
      '/jobs/j/r/agent/acp_trajectory.jsonl': 'acp-trajectory',
      '/jobs/j/r/trajectory/llm_trajectory.jsonl': 'llm-trajectory',
      '/jobs/j/r/results.jsonl': 'results',
      '/jobs/j/results.jsonl': 'results',
      '/jobs/j/r/rewards.jsonl': 'rewards',
      '/jobs/j/r/benchguard/action_records.jsonl': 'action-records',
      '/jobs/j/r/result.json': 'result',
      '/jobs/j/r/config.json': 'config',
      '/jobs/j/r/run_config.json': 'config',
      '/jobs/j/r/metadata.json': 'config',
      '/jobs/j/r/benchguard/preflight.json': 'preflight',
      '/jobs/j/r/timing.json': 'timing',
      '/jobs/j/r/acp_trajectory.jsonl': undefined,
      '/jobs/j/r/preflight.json': undefined,
      '/jobs/j/r/prompts.json': undefined,
      '/jobs/j/r/trainer/verifiers.jsonl': undefined,
    };
    for (const [path, kind] of Object.entries(expectations)) assert.equal(classifier.kindOf(path), kind, path);
  });

  it('answers for every built-in pattern exactly as minimatch does, on paths made to trip a suffix test', () => {
    const user = new ArtifactClassifier({ 'notes/result.json': 'config' });
    const tricky = [
      'trajectory/acp_trajectory.jsonl',
      '/trajectory/acp_trajectory.jsonl',
      'xtrajectory/acp_trajectory.jsonl',
      '/a/xtrajectory/acp_trajectory.jsonl',
      '/a/.hidden/trajectory/acp_trajectory.jsonl',
      '/a//trajectory/acp_trajectory.jsonl',
      '/a/./trajectory/acp_trajectory.jsonl',
      '/a/../trajectory/acp_trajectory.jsonl',
      '/a/trajectory/acp_trajectory.jsonl/',
      '/a/trajectory/acp_trajectory.jsonl//',
      'trajectory/acp_trajectory.jsonl/',
      '/a/trajectory//acp_trajectory.jsonl',
      '/a/trajectory/acp_trajectory.jsonl/.',
      '/a/trajectory/acp_trajectory.jsonl.bak',
      '/a/Trajectory/ACP_trajectory.jsonl',
      '/a/result.json',
      'result.json',
      '/result.json',
      '/a/bresult.json',
      '/a/notes/result.json',
      '/a/.result.json',
      '/a/b\\result.json',
    ];
    const patterns = artifactPatterns({ 'notes/result.json': 'config' });
    for (const path of tricky) {
      const forward = path.replace(/\\/g, '/');
      const expected = patterns.find(({ glob }) => new Minimatch(glob, { dot: true }).match(forward))?.kind;
      assert.equal(user.kindOf(path), expected, path);
    }
  });

  it('reads Windows paths', () => {
    assert.equal(classifier.kindOf('C:\\jobs\\r\\trajectory\\acp_trajectory.jsonl'), 'acp-trajectory');
  });

  it('consults user patterns first; a pattern without a slash names a file anywhere', () => {
    const custom = new ArtifactClassifier({ '*.traj.jsonl': 'acp-trajectory', '**/special/result.json': 'config' });
    assert.equal(custom.kindOf('/a/b/run1.traj.jsonl'), 'acp-trajectory');
    assert.equal(custom.kindOf('/a/special/result.json'), 'config');
    assert.equal(custom.kindOf('/a/other/result.json'), 'result');
  });

  it('covers every pattern of the kind table', () => {
    for (const info of artifactKinds) {
      for (const pattern of info.patterns)
        assert.equal(classifier.kindOf(pattern.replace('**', '/x')), info.kind, pattern);
    }
  });
});
