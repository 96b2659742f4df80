/**
 * Ambiguity never helps a reward. A key written twice with two values, a number whose text a C or shell
 * reader takes otherwise than JSON.parse does, and a command word that C's argv cuts short, are each
 * read as unknown: a rule that helps trust needs the value surely known, one that hurts trust fires on
 * the value it may have had. Each case below was trusted before (JSON.parse keeps a repeated key's last
 * value; 1e-400 is 0; "agent\0" was read as a user other than agent).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { listedFindings, type CheckedBundle } from '../../server/src/engine/checkRollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { fixtures } from '../fixtures/definitions';
import { writeTree } from '../support/files';
import { temporaryFolder } from '../support/repo';
import { checkRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());
const checker = new ArtifactChecker();
const caches = new ModelCaches();

const actionsPath = 'benchguard/action_records.jsonl';

interface Case {
  readonly name: string;
  readonly fixture: string;
  readonly file: string;
  /** The text as written, and what it becomes: found exactly once in the fixture's file. */
  readonly from: string;
  readonly to: string;
  /** The finding that says why. */
  readonly code: 'duplicate-key' | 'number-ambiguous' | undefined;
  /** What it is now: untrusted where the fixture was, since the value it may have had distrusts. */
  readonly verdict: 'untrusted' | 'incomplete';
}

let written = 0;
function checkChanged({ fixture: name, file, from, to }: Case): CheckedBundle {
  const fixture = fixtures.find((candidate) => candidate.name === name)!;
  const text = fixture.files[file]!;
  assert.equal(text.split(from).length, 2, `${name}/${file} holds ${JSON.stringify(from)} once`);
  const root = join(folder.path, `${name}-${written++}`);
  writeTree(root, { ...fixture.files, ...fixture.bytes, [file]: text.replace(from, to) });
  return checkRollout(root, checker, {
    maxFindings: 1000,
    rules: { ...defaultRuleOptions, ...fixture.options },
    caches,
  });
}

const survivorsListed =
  '"survivors":[{"pid":1234,"state":"S","ruid":1001,"euid":1001,"name":"python3"}],"return_code":1';

const cases: readonly Case[] = [
  {
    name: "an observation's return_code 1 then 0",
    fixture: 'survivors-with-reward',
    file: actionsPath,
    from: survivorsListed,
    to: '"return_code":1,"survivors":[],"return_code":0',
    code: 'duplicate-key',
    verdict: 'untrusted',
  },
  {
    name: "the grading exec's phase Verify then Agent",
    fixture: 'verifier-before-quiescence',
    file: actionsPath,
    from: '"phase":"Verify","service":"benchguard-verifier","status":"ok","command_preview":"bash',
    to: '"phase":"Verify","phase":"Agent","service":"benchguard-verifier","status":"ok","command_preview":"bash',
    code: 'duplicate-key',
    verdict: 'untrusted',
  },
  {
    name: "the last kill's command_preview then true",
    fixture: 'observation-before-last-kill',
    file: actionsPath,
    from: '"command_preview":"pkill -9 -u agent"',
    to: '"command_preview":"pkill -9 -u agent","command_preview":"true"',
    code: 'duplicate-key',
    verdict: 'untrusted',
  },
  {
    name: 'tool_call_status_counts written twice, the second matching the trajectory',
    fixture: 'status-counts-mismatch',
    file: 'result.json',
    from: '"tool_call_status_counts": {\n      "completed": 2\n    },',
    to: '"tool_call_status_counts": {\n      "completed": 2\n    },\n    "tool_call_status_counts": {\n      "completed": 1\n    },',
    code: 'duplicate-key',
    verdict: 'untrusted',
  },
  {
    name: 'config.json sandbox_user "agent" then null',
    fixture: 'survivors-with-reward',
    file: 'config.json',
    from: '"sandbox_user": "agent",',
    to: '"sandbox_user": "agent",\n  "sandbox_user": null,',
    code: 'duplicate-key',
    verdict: 'untrusted',
  },
  {
    name: "an observation's final false then true",
    fixture: 'healthy',
    file: actionsPath,
    from: '"final":true',
    to: '"final":false,"final":true',
    code: 'duplicate-key',
    verdict: 'untrusted',
  },
  {
    name: "the agent_timeout row's terminal_trajectory_complete false then true",
    fixture: 'native-timeout-complete',
    file: 'trajectory/acp_trajectory.jsonl',
    from: '"terminal_trajectory_complete":true',
    to: '"terminal_trajectory_complete":false,"terminal_trajectory_complete":true',
    code: 'duplicate-key',
    verdict: 'incomplete',
  },
  {
    name: "the last kill's user followed by a NUL byte (agent to sh -c)",
    fixture: 'observation-before-last-kill',
    file: actionsPath,
    from: '"command_preview":"pkill -9 -u agent"',
    to: '"command_preview":"pkill -9 -u agent\\u0000"',
    code: undefined,
    verdict: 'untrusted',
  },
  {
    name: "an unresolved tool_call row's type written again as agent_timeout",
    fixture: 'tool-call-without-id-or-status',
    file: 'trajectory/acp_trajectory.jsonl',
    from: '{"type":"tool_call","kind":"execute"',
    to: '{"type":"tool_call","type":"agent_timeout","kind":"execute"',
    code: 'duplicate-key',
    verdict: 'untrusted',
  },
  {
    name: "result.json's task, under a damaged key, written as 0",
    fixture: 'damaged-key-task-name',
    file: 'result.json',
    from: '"task_nam%": "hello-world"',
    to: '"task_nam%": 0',
    code: undefined,
    verdict: 'untrusted',
  },
  {
    name: "result.json's task, under a damaged key, written as null (what is left of the claim)",
    fixture: 'damaged-key-task-name',
    file: 'result.json',
    from: '"task_nam%": "hello-world"',
    to: '"task_nam%": null',
    code: undefined,
    verdict: 'untrusted',
  },
  {
    name: "an observation's return_code 1e-400 (0 to JSON.parse)",
    fixture: 'survivors-with-reward',
    file: actionsPath,
    from: survivorsListed,
    to: '"survivors":[],"return_code":1e-400',
    code: 'number-ambiguous',
    verdict: 'untrusted',
  },
];

describe('an ambiguous value is unknown, never the last value read', () => {
  for (const ambiguity of cases) {
    it(`${ambiguity.name} (${ambiguity.fixture}): ${ambiguity.verdict}${ambiguity.code ? `, with ${ambiguity.code}` : ''}`, () => {
      const checked = checkChanged(ambiguity);
      const verdict = checked.evaluation?.verdict;
      const codes = listedFindings(checked, 1000).findings.map((finding) => finding.code);
      assert.equal(verdict, ambiguity.verdict, codes.join(' '));
      if (ambiguity.code) assert.ok(codes.includes(ambiguity.code), codes.join(' '));
    });
  }
});

describe('a command_preview with a NUL byte is read as written and as sh -c is given it', () => {
  const lastKill = (command: string): CheckedBundle =>
    checkChanged({
      name: command,
      fixture: 'observation-before-last-kill',
      file: actionsPath,
      from: '"command_preview":"pkill -9 -u agent"',
      to: `"command_preview":${JSON.stringify(command)}`,
      code: undefined,
      verdict: 'untrusted',
    });

  it('says which reading the stale observation holds under', () => {
    const stale = listedFindings(lastKill('pkill -9 -u agent\u0000'), 1000).findings.find(
      (finding) => finding.code === 'quiescence-stale',
    );
    assert.ok(stale, 'the kill after the observation may be a kill of agent');
    assert.match(
      stale.message,
      /\(This holds when the action record that holds a NUL byte in its command_preview on line 3 is read as its command_preview up to its NUL byte, as sh -c is given it\.\)/,
    );
  });

  it('near miss: a kill of another user, with no NUL byte, leaves the observation standing', () => {
    const checked = lastKill('pkill -9 -u agentx');
    assert.equal(checked.evaluation?.verdict, 'trusted');
  });
});
