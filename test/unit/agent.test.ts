/**
 * The agent of a rollout, read in one place (engine/model/agent.ts): as BenchFlow names it for the
 * experiment summary, and as BenchFlow's experiment-review validator tests it for an oracle run
 * (validate_run_artifacts.py `is_oracle_result`: str(value).strip().lower() == "oracle" over result.json
 * agent and agent_name, config.json agent and harness).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { agentNameOf, validatorTakesForOracle } from '../../server/src/engine/model/agent';
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

describe('the agent of a rollout', () => {
  it('is the first that BenchFlow writes: result.json agent, then agent_name, then config.json agent', () => {
    assert.equal(agentNameOf({ agent: 'codex-acp', agent_name: 'Codex' }, { agent: 'x' }), 'codex-acp');
    assert.equal(agentNameOf({ agent: ' ', agent_name: 'Codex' }, { agent: 'x' }), 'Codex');
    assert.equal(agentNameOf({}, { agent: 'claude-agent-acp' }), 'claude-agent-acp');
    assert.equal(agentNameOf({ agent: 7 }, undefined), null);
  });

  it('is an oracle run to the validator when any of its four fields reads oracle, stripped and in any case', () => {
    assert.equal(validatorTakesForOracle({ agent: ' Oracle ' }, undefined), true);
    assert.equal(validatorTakesForOracle({ agent: 'codex-acp' }, { harness: 'ORACLE' }), true);
    assert.equal(validatorTakesForOracle({ agent: 'oracle-like' }, { agent: 'codex' }), false);
  });

  it('an oracle rollout whose agent is written " Oracle" keeps the validator\'s exemption from the LLM trajectory', () => {
    const oracle = fixtures.find((fixture) => fixture.name === 'oracle-without-llm')!;
    const spaced = (text: string) => text.replace(/"oracle"/g, '" Oracle"');
    const root = join(folder.path, 'spaced-oracle');
    writeTree(root, {
      ...oracle.files,
      'result.json': spaced(oracle.files['result.json']!),
      'config.json': spaced(oracle.files['config.json']!),
    });
    const checked = checkRollout(root, new ArtifactChecker(), {
      maxFindings: 1000,
      rules: { ...defaultRuleOptions, ...oracle.options },
      caches: new ModelCaches(),
    });
    const codes = listedFindings(checked, 1000).findings.map((finding) => finding.code);
    assert.ok(!codes.includes('review-missing-artifact'), codes.join(' '));
    assert.equal(checked.evaluation?.verdict, oracle.verdict);
  });
});
