/**
 * Damaged evidence never counts as absent: one flipped letter in the verifier declaration or in an
 * action record's event_type or phase must not raise a rollout's verdict (untrusted < incomplete <
 * trusted-timeout < trusted), and a change of case only must change nothing at all. Checked on the
 * scenarios of issue 11, then over every fixture bundle.
 */
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { listedFindings, type CheckedBundle } from '../../server/src/engine/checkRollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { verdicts, type Verdict } from '../../server/src/engine/verdict';
import { fixtures, type FixtureDefinition } from '../fixtures/definitions';
import { writeTree } from '../support/files';
import { seededRandom, type SeededRandom } from '../support/random';
import { temporaryFolder } from '../support/repo';
import { checkRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());
const checker = new ArtifactChecker();
const caches = new ModelCaches();
const preflightPath = 'benchguard/preflight.json';
const actionsPath = 'benchguard/action_records.jsonl';

let written = 0;
function check(fixture: FixtureDefinition, files: Readonly<Record<string, string>>): CheckedBundle {
  const root = join(folder.path, `${fixture.name}-${written++}`);
  writeTree(root, { ...files, ...fixture.bytes });
  return checkRollout(root, checker, {
    maxFindings: fixture.maxProblems ?? 1000,
    rules: { ...defaultRuleOptions, ...fixture.options },
    caches,
  });
}

function verdictOf(checked: CheckedBundle): Verdict {
  assert.ok(checked.evaluation, 'the rollout was evaluated');
  return checked.evaluation.verdict;
}

/** Everything the checker says of a rollout, with its folder left out, to compare two folders' findings. */
function said(checked: CheckedBundle): string[] {
  const root = checked.root;
  return listedFindings(checked, 1000).findings.map(
    (finding) =>
      `${relative(root, finding.file)}:${finding.range.start.line + 1}:${finding.range.start.character} ${finding.code} ${finding.message}`,
  );
}

function codes(checked: CheckedBundle): string[] {
  return listedFindings(checked, 1000).findings.map((finding) => finding.code);
}

/** Lower is worse: the order in which `verdicts` lists them. */
const rank = (verdict: Verdict) => verdicts.indexOf(verdict);

const fixture = (name: string) => fixtures.find((candidate) => candidate.name === name)!;

/** The action records of a fixture, with `change` made to the record on `line` (0-based). */
function withRecord(
  files: Readonly<Record<string, string>>,
  line: number,
  change: (record: Record<string, unknown>) => Record<string, unknown>,
): Record<string, string> {
  const lines = files[actionsPath]!.split('\n');
  lines[line] = JSON.stringify(change(JSON.parse(lines[line]!) as Record<string, unknown>));
  return { ...files, [actionsPath]: lines.join('\n') };
}

/** The line (0-based) of the first action record `matches` picks. */
function lineOf(
  files: Readonly<Record<string, string>>,
  matches: (record: Record<string, unknown>) => boolean,
): number {
  const line = files[actionsPath]!.split('\n').findIndex(
    (text) => text !== '' && matches(JSON.parse(text) as Record<string, unknown>),
  );
  assert.ok(line >= 0, 'the fixture has such a record');
  return line;
}

/** One letter of `text` replaced by one that is no case of it, so the word is no longer any known one. */
function flipped(text: string, at: number): string {
  const letter = text[at]!.toLowerCase() === 'z' ? 'q' : 'z';
  return `${text.slice(0, at)}${letter}${text.slice(at + 1)}`;
}

describe('a flipped verifier declaration fails closed', () => {
  it('verifier_environment_mOde in the setup-only bundle keeps it untrusted, and says the declaration cannot be read', () => {
    const setupOnly = fixture('setup-only-verifier');
    assert.equal(verdictOf(check(setupOnly, setupOnly.files)), 'untrusted');
    const damaged = check(setupOnly, {
      ...setupOnly.files,
      [preflightPath]: setupOnly.files[preflightPath]!.replace(
        '"verifier_environment_mode"',
        '"verifier_environment_mOde"',
      ),
    });
    assert.equal(verdictOf(damaged), 'untrusted');
    assert.ok(codes(damaged).includes('verifier-declaration-unreadable'), codes(damaged).join(' '));
    assert.ok(
      codes(damaged).includes('verifier-setup-only'),
      'the separate-verifier rules ran as if the mode were separate',
    );
  });

  it('a preflight that is not JSON, whose facts are not an object, or whose report is cut short of the facts, is unreadable, not "shared"', () => {
    const setupOnly = fixture('setup-only-verifier');
    const cutShort = [
      { report: { a: { a: {} } } },
      { report: { task_binding: {} } },
      { report: { task_binding: { facts: { a: { a: {} } } } } },
    ].map((value) => JSON.stringify(value));
    for (const text of [
      setupOnly.files[preflightPath]!.slice(0, 40),
      JSON.stringify({ report: { task_binding: { facts: 'separate' } } }),
      ...cutShort,
    ]) {
      const damaged = check(setupOnly, { ...setupOnly.files, [preflightPath]: text });
      assert.equal(verdictOf(damaged), 'untrusted', text);
      assert.ok(codes(damaged).includes('verifier-declaration-unreadable'), text);
    }
  });

  it('keys that are no look-alike of the declaration, and a preflight without one, declare nothing', () => {
    const setupOnly = fixture('setup-only-verifier');
    for (const facts of [{ verifier_timeout_sec: 600 }, {}]) {
      const checked = check(setupOnly, {
        ...setupOnly.files,
        [preflightPath]: JSON.stringify({ report: { task_binding: { facts } } }),
      });
      assert.equal(verdictOf(checked), 'trusted', JSON.stringify(facts));
    }
    const withoutReport = check(setupOnly, {
      ...setupOnly.files,
      [preflightPath]: JSON.stringify({ benchguard_version: '0.3' }),
    });
    assert.equal(verdictOf(withoutReport), 'trusted', 'a preflight of another shape, with no report');
  });

  it('no one-letter change of a declaration key or of the mode, and no cut, raises a fixture (all of them where the declaration decides, one drawn elsewhere; seed 1079)', () => {
    const random = seededRandom(1079);
    const decisive = new Set([
      'setup-only-verifier',
      'verifier-mode-not-declared',
      'verifier-before-quiescence',
      'healthy',
    ]);
    let mutations = 0;
    for (const subject of fixtures.filter((candidate) => candidate.files[preflightPath] !== undefined)) {
      const all = damagedPreflights(subject.files[preflightPath]!);
      for (const preflight of decisive.has(subject.name) ? all : [all[random.below(all.length)]!]) {
        mutations++;
        const verdict = verdictOf(check(subject, { ...subject.files, [preflightPath]: preflight }));
        assert.ok(
          rank(verdict) <= rank(subject.verdict),
          `${subject.name}: ${subject.verdict} became ${verdict} with preflight ${JSON.stringify(preflight)}`,
        );
      }
    }
    assert.ok(mutations > 100, `${mutations} damaged preflights checked`);
  });
});

/** The preflight cut in half, and with one letter changed at the start, middle and end of each declaration key and mode. */
function damagedPreflights(text: string): string[] {
  const words = [
    '"report"',
    '"task_binding"',
    '"facts"',
    '"verifier_environment_mode"',
    '"verifier_environment_mode_declared"',
    '"separate"',
    '"shared"',
  ];
  const damaged = [text.slice(0, text.length >> 1)];
  for (const word of words.filter((candidate) => text.includes(candidate))) {
    const at = text.indexOf(word);
    // Inside the quotes: the first, a middle and the last letter.
    for (const offset of [1, word.length >> 1, word.length - 2])
      damaged.push(`${text.slice(0, at)}${flipped(word, offset)}${text.slice(at + word.length)}`);
  }
  return damaged;
}

describe('an action record of unknown kind fails closed', () => {
  it('Verifz as the phase of the grading in the grading-before-quiescence bundle keeps it untrusted', () => {
    const before = fixture('verifier-before-quiescence');
    assert.equal(verdictOf(check(before, before.files)), 'untrusted');
    const damaged = check(
      before,
      withRecord(
        before.files,
        lineOf(before.files, (record) => record['action_id'] === 'a-5'),
        (record) => ({ ...record, phase: 'Verifz' }),
      ),
    );
    assert.equal(verdictOf(damaged), 'untrusted');
    assert.deepEqual(
      codes(damaged).filter((code) => code === 'action-kind-unknown' || code === 'verifier-before-quiescence'),
      ['action-kind-unknown', 'verifier-before-quiescence'],
    );
  });

  it('a flipped "phase" key on the grading is read as its phase: the bundle stays untrusted, and says the key is damaged', () => {
    const before = fixture('verifier-before-quiescence');
    const line = lineOf(before.files, (record) => record['action_id'] === 'a-5');
    const damaged = check(
      before,
      withRecord(before.files, line, ({ phase, ...rest }) => ({ ...rest, phasf: phase })),
    );
    assert.equal(verdictOf(damaged), 'untrusted');
    assert.ok(
      codes(damaged).includes('verifier-before-quiescence') && codes(damaged).includes('schema'),
      codes(damaged).join(' '),
    );
  });

  it('SandboxExeC, or any other change of case, changes nothing', () => {
    for (const subject of fixtures.filter((candidate) => candidate.files[actionsPath]?.includes('"SandboxExec"'))) {
      const line = lineOf(subject.files, (record) => record['event_type'] === 'SandboxExec');
      const cases = withRecord(subject.files, line, (record) => ({
        ...record,
        event_type: 'SandboxExeC',
        ...(typeof record['phase'] === 'string' ? { phase: record['phase'].toUpperCase() } : {}),
      }));
      assert.deepEqual(said(check(subject, cases)), said(check(subject, subject.files)), subject.name);
    }
  });

  it('an observation whose event_type is damaged still reports its survivors', () => {
    const survivors = fixture('survivors-with-reward');
    const line = lineOf(survivors.files, (record) => record['event_type'] === 'SandboxUserQuiescence');
    const damaged = check(
      survivors,
      withRecord(survivors.files, line, (record) => ({ ...record, event_type: 'SandboxUserQuiescencz' })),
    );
    assert.equal(verdictOf(damaged), 'untrusted');
    assert.ok(codes(damaged).includes('quiescence-survivors'), codes(damaged).join(' '));
  });

  it("an earlier probe's setuid_processes are survivors: a process holding the user's uid only as its real uid can still write as the user", () => {
    const healthy = fixture('healthy');
    const line = lineOf(healthy.files, (record) => record['event_type'] === 'SandboxUserQuiescence');
    const setuid = [{ pid: 77, state: 'S', ruid: 1001, euid: 0, name: 'su' }];
    const legacy = check(
      healthy,
      withRecord(healthy.files, line, (record) => ({
        ...record,
        survivors: [],
        setuid_processes: setuid,
        return_code: 0,
        final: true,
      })),
    );
    assert.equal(verdictOf(legacy), 'untrusted');
    assert.ok(codes(legacy).includes('quiescence-survivors'), codes(legacy).join(' '));
    assert.equal(
      verdictOf(
        check(
          healthy,
          withRecord(healthy.files, line, (record) => ({ ...record, setuid_processes: [] })),
        ),
      ),
      'trusted',
    );
  });

  it('no one-letter change of an event_type or phase raises a fixture (two records drawn from each; seed 1079)', () => {
    const random: SeededRandom = seededRandom(1079);
    let mutations = 0;
    for (const subject of fixtures.filter((candidate) => candidate.files[actionsPath] !== undefined)) {
      const lines = subject.files[actionsPath]!.split('\n');
      const records = lines.flatMap((text, line) => (text === '' ? [] : [line]));
      for (const line of [records[random.below(records.length)]!, records[random.below(records.length)]!]) {
        const record = JSON.parse(lines[line]!) as Record<string, unknown>;
        // Re-serialising the record drops a key written twice (the duplicate-key fixture): that repairs an
        // ambiguity, so the damage is measured against the record re-serialised as it was.
        const undamaged = verdictOf(
          check(
            subject,
            withRecord(subject.files, line, (original) => original),
          ),
        );
        for (const field of ['event_type', 'phase']) {
          const value = record[field];
          if (typeof value !== 'string' || value === '') continue;
          const damagedValue = flipped(value, random.below(value.length));
          mutations++;
          const verdict = verdictOf(
            check(
              subject,
              withRecord(subject.files, line, (original) => ({ ...original, [field]: damagedValue })),
            ),
          );
          assert.ok(
            rank(verdict) <= rank(undamaged),
            `${subject.name}: ${undamaged} became ${verdict} with ${field} ${JSON.stringify(damagedValue)} on line ${line + 1}`,
          );
        }
      }
    }
    assert.ok(mutations > 100, `${mutations} damaged records checked`);
  });
});

const configPath = 'config.json';

/** config.json cut in half, as an array, and with a sandbox_user that is no user (a command, a number). */
function damagedConfigs(text: string): string[] {
  const config = JSON.parse(text) as Record<string, unknown>;
  return [
    text.slice(0, text.length >> 1),
    '[]',
    JSON.stringify({ ...config, sandbox_user: 'pgrep -u agent' }),
    JSON.stringify({ ...config, sandbox_user: 5 }),
  ];
}

function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('a damaged config.json leaves the sandbox user unreadable, never absent', () => {
  it('config.json that is not JSON keeps grading before quiescence untrusted, and the stale kill after the last observation', () => {
    for (const [name, code] of [
      ['verifier-before-quiescence', 'verifier-before-quiescence'],
      ['observation-before-last-kill', 'quiescence-stale'],
    ] as const) {
      const subject = fixture(name);
      const damaged = check(subject, { ...subject.files, [configPath]: subject.files[configPath]!.slice(0, 60) });
      assert.equal(verdictOf(damaged), 'untrusted', name);
      assert.ok(codes(damaged).includes(code), `${name}: ${codes(damaged).join(' ')}`);
      assert.ok(codes(damaged).includes('json-syntax'), 'the damaged config.json has a finding of its own');
    }
  });

  it('a sandbox_user that is a command is no user: the masked observation of "agent" is still found', () => {
    const masked = fixture('masked-quiescence-probe');
    const damaged = check(masked, {
      ...masked.files,
      [configPath]: JSON.stringify({
        ...(JSON.parse(masked.files[configPath]!) as object),
        sandbox_user: 'pgrep -u agent',
      }),
    });
    assert.equal(verdictOf(damaged), 'untrusted');
    assert.ok(codes(damaged).includes('masked-exit-status'), codes(damaged).join(' '));
  });

  it('a healthy rollout with a damaged config.json is incomplete: an observation of an unknown user proves nothing', () => {
    const healthy = fixture('healthy');
    assert.equal(verdictOf(check(healthy, healthy.files)), 'trusted');
    const damaged = check(healthy, { ...healthy.files, [configPath]: healthy.files[configPath]!.slice(0, 60) });
    assert.equal(verdictOf(damaged), 'incomplete');
    assert.ok(codes(damaged).includes('quiescence-unproven'), codes(damaged).join(' '));
    assert.equal(damaged.evaluation?.quiescence.proof, undefined);
  });

  it('sandbox_user null still means no quiescence rule applies (the near miss: a readable null)', () => {
    const rootOnly = fixture('sandbox-user-null');
    const checked = check(rootOnly, rootOnly.files);
    assert.equal(checked.evaluation?.quiescence.applies, false);
    assert.equal(verdictOf(checked), rootOnly.verdict);
  });

  it('no damage to config.json raises a fixture that has a readable one and action records', () => {
    let mutations = 0;
    for (const subject of fixtures.filter(
      (candidate) => candidate.files[actionsPath] !== undefined && isJsonText(candidate.files[configPath] ?? ''),
    )) {
      for (const config of damagedConfigs(subject.files[configPath]!)) {
        mutations++;
        const checked = check(subject, { ...subject.files, [configPath]: config });
        assert.ok(
          rank(verdictOf(checked)) <= rank(subject.verdict),
          `${subject.name}: ${subject.verdict} became ${verdictOf(checked)} with config.json ${JSON.stringify(config)}`,
        );
        assert.equal(
          checked.evaluation?.quiescence.applies,
          true,
          `${subject.name}: a damaged sandbox_user read as null with config.json ${JSON.stringify(config)}`,
        );
      }
    }
    assert.ok(mutations > 40, `${mutations} damaged configs checked`);
  });
});

describe('a damaged trajectory row fails closed', () => {
  const trajectoryPath = 'trajectory/acp_trajectory.jsonl';
  const rows = (files: Readonly<Record<string, string>>) => files[trajectoryPath]!.split('\n');

  it('a row whose phase is none the schema knows is no agent-side event: a cut "Verifier" does not supply the one the validator needs', () => {
    const subject = fixture('review-no-agent-events');
    const lines = rows(subject.files);
    lines[2] = lines[2]!.replace('"Verifier"', '"ifier"');
    const damaged = check(subject, { ...subject.files, [trajectoryPath]: lines.join('\n') });
    assert.equal(verdictOf(damaged), 'incomplete');
    assert.ok(codes(damaged).includes('review-no-agent-events'), codes(damaged).join(' '));
    const agent = rows(subject.files).map((line, index) =>
      index === 2 ? line.replace('"Verifier"', '"agent"') : line,
    );
    assert.ok(
      !codes(check(subject, { ...subject.files, [trajectoryPath]: agent.join('\n') })).includes(
        'review-no-agent-events',
      ),
      'near miss: a known agent phase',
    );
  });

  it('a damaged agent_timeout type is read as the timeout marker it was: its pending list still contradicts the rows', () => {
    const subject = fixture('timeout-pending-mismatch');
    const lines = rows(subject.files).map((line) => line.replace('"type":"agent_timeout"', '"type":"agentptimeout"'));
    assert.notDeepEqual(lines, rows(subject.files), 'the fixture has an agent_timeout row');
    const damaged = check(subject, { ...subject.files, [trajectoryPath]: lines.join('\n') });
    assert.equal(verdictOf(damaged), 'untrusted');
    assert.ok(codes(damaged).includes('timeout-pending-mismatch'), codes(damaged).join(' '));
  });

  it('a row type grown past a known type with characters no writer puts in a type is damaged; a new snake-case type is not', () => {
    const subject = fixture('healthy');
    const withType = (type: string) => {
      const lines = rows(subject.files).map((line) =>
        line.replace('"type":"agent_message"', `"type":${JSON.stringify(type)}`),
      );
      return check(subject, { ...subject.files, [trajectoryPath]: lines.join('\n') });
    };
    const grown = withType(`agent_messagE${'é'.repeat(8000)}`);
    assert.equal(verdictOf(grown), 'incomplete');
    assert.ok(codes(grown).includes('schema'), codes(grown).join(' '));
    assert.equal(verdictOf(withType('agent_message_chunk')), 'trusted');
  });
});

/**
 * A record that breaks its schema is read as each thing it may have been (README "Damaged evidence"):
 * the scenarios the fuzz property found where a readable damaged record lost its rollout's untrust.
 */
describe('a damaged record is read as each thing it may have been', () => {
  const trajectoryPath = 'trajectory/acp_trajectory.jsonl';
  const resultsPath = 'results.jsonl';

  /** The fixture with `change` made to the first line of `path` that `matches`. */
  function withLine(
    subject: FixtureDefinition,
    path: string,
    matches: (text: string) => boolean,
    change: (text: string) => string,
  ): Record<string, string> {
    const lines = subject.files[path]!.split('\n');
    const line = lines.findIndex(matches);
    assert.ok(line >= 0, `${subject.name} has such a line in ${path}`);
    const changed = change(lines[line]!);
    assert.notEqual(changed, lines[line], 'the change changes the line');
    lines[line] = changed;
    return { ...subject.files, [path]: lines.join('\n') };
  }

  function assertStaysUntrusted(subject: FixtureDefinition, files: Record<string, string>, code: string): void {
    assert.equal(verdictOf(check(subject, subject.files)), 'untrusted', 'the fixture as written');
    const damaged = check(subject, files);
    assert.equal(verdictOf(damaged), 'untrusted', said(damaged).join('\n'));
    assert.ok(codes(damaged).includes(code), codes(damaged).join(' '));
    assert.ok(codes(damaged).includes('schema'), 'the damage is reported');
  }

  it('a setup exec whose command_preview is no longer text is still read as setup only: the verifier stays unproven', () => {
    const subject = fixture('setup-only-verifier');
    const files = withRecord(
      subject.files,
      lineOf(
        subject.files,
        (record) =>
          typeof record['command_preview'] === 'string' && String(record['command_preview']).startsWith('mkdir'),
      ),
      (record) => ({ ...record, command_preview: true }),
    );
    assertStaysUntrusted(subject, files, 'verifier-setup-only');
    const message = said(check(subject, files)).find((line) => line.includes('verifier-setup-only'))!;
    assert.match(
      message,
      /This holds when the action record that breaks its schema on line \d+ is read as event_type SandboxExec and an unreadable command as setup only\./,
    );
    const setupLine = lineOf(
      subject.files,
      (record) =>
        typeof record['command_preview'] === 'string' && String(record['command_preview']).startsWith('mkdir'),
    );
    assertStaysUntrusted(
      subject,
      withRecord(subject.files, setupLine, (record) => ({ ...record, service: [record['service']] })),
      'verifier-setup-only',
    );
  });

  it('the last kill whose command_preview is no longer text is still read as a kill: the observation before it stays stale', () => {
    const subject = fixture('observation-before-last-kill');
    const lines = subject.files[actionsPath]!.split('\n').filter((text) => text !== '');
    const kills = lines.map((text) =>
      /pkill|kill /.test(String((JSON.parse(text) as Record<string, unknown>)['command_preview'] ?? '')),
    );
    const lastKill = kills.lastIndexOf(true);
    assert.ok(lastKill >= 0, 'the fixture has a kill exec');
    assertStaysUntrusted(
      subject,
      withRecord(subject.files, lastKill, (record) => ({ ...record, command_preview: 7 })),
      'quiescence-stale',
    );
  });

  it('a verifier start turned SandboxExec is still read as the start it was: grading elsewhere stays unproven', () => {
    const subject = fixture('grading-in-another-service');
    const line = lineOf(subject.files, (record) => record['event_type'] === 'StartBenchGuardVerifierService');
    assertStaysUntrusted(
      subject,
      withRecord(subject.files, line, (record) => ({ ...record, event_type: 'SandboxExec' })),
      'verifier-grading-unproven',
    );
  });

  it('an observation turned SandboxExec, or whose return_code is out of range, is still read as the proof that came after grading', () => {
    const subject = fixture('verifier-before-quiescence');
    const line = lineOf(
      subject.files,
      (record) => record['event_type'] === 'SandboxUserQuiescence' && record['final'] === true,
    );
    assertStaysUntrusted(
      subject,
      withRecord(subject.files, line, (record) => ({ ...record, event_type: 'SandboxExec' })),
      'verifier-before-quiescence',
    );
    assertStaysUntrusted(
      subject,
      withRecord(subject.files, line, (record) => ({ ...record, return_code: 8 })),
      'verifier-before-quiescence',
    );
  });

  it('a damaged final observation of a healthy rollout is read as each outcome it may record, so it is no proof and may hide survivors', () => {
    const subject = fixture('healthy');
    const line = lineOf(subject.files, (record) => record['event_type'] === 'SandboxUserQuiescence');
    const damaged = check(
      subject,
      withRecord(subject.files, line, (record) => ({ ...record, return_code: '0' })),
    );
    assert.equal(verdictOf(damaged), 'untrusted');
    assert.ok(
      said(damaged).some((text) =>
        / quiescence-survivors .*read as event_type SandboxUserQuiescence and a damaged observation as survivors/.test(
          text,
        ),
      ),
      said(damaged).join('\n'),
    );
    const intact = check(subject, subject.files);
    assert.equal(verdictOf(intact), 'trusted', 'near miss: the same observation with return_code 0');
  });

  it('an agent_timeout row whose type is no string, or a type no schema knows, is still read as the timeout marker it carries', () => {
    const subject = fixture('timeout-pending-mismatch');
    const isTimeout = (text: string) => text.includes('"type":"agent_timeout"');
    assertStaysUntrusted(
      subject,
      withLine(subject, trajectoryPath, isTimeout, (text) => text.replace('"type":"agent_timeout"', '"type":[]')),
      'timeout-pending-mismatch',
    );
    const unknownType = check(
      subject,
      withLine(subject, trajectoryPath, isTimeout, (text) =>
        text.replace('"type":"agent_timeout"', '"type":"nnt_timeout"'),
      ),
    );
    assert.equal(verdictOf(unknownType), 'untrusted', said(unknownType).join('\n'));
    assert.ok(
      said(unknownType).some((text) =>
        /timeout-pending-mismatch .*This holds when the trajectory row on line \d+, whose type cannot be taken at its word, is read as an agent_timeout row\./.test(
          text,
        ),
      ),
      said(unknownType).join('\n'),
    );
  });

  it('a prompt turned agent_timeout, carrying none of its keys, is also read as the row the rules pass over', () => {
    const subject = fixture('oracle-without-llm');
    assertStaysUntrusted(
      subject,
      withLine(
        subject,
        trajectoryPath,
        (text) => text.includes('"type":"user_message"'),
        (text) => text.replace('"type":"user_message"', '"type":"agent_timeout"'),
      ),
      'review-training-ready',
    );
  });

  it('a results row whose info is no object cannot say it is training-ready', () => {
    const subject = fixture('review-training-ready');
    const files = withLine(
      subject,
      resultsPath,
      (text) => text.includes('"info"'),
      (text) => JSON.stringify({ ...(JSON.parse(text) as Record<string, unknown>), info: 1.5 }),
    );
    assertStaysUntrusted(subject, files, 'review-training-ready');
  });

  it('status counts that cannot be read, or an error field of a type no writer gives it, are never taken as harmless', () => {
    const counts = fixture('status-counts-mismatch');
    const asResult = (
      subject: FixtureDefinition,
      change: (result: Record<string, unknown>) => Record<string, unknown>,
    ) => ({
      ...subject.files,
      'result.json': JSON.stringify(
        change(JSON.parse(subject.files['result.json']!) as Record<string, unknown>),
        null,
        2,
      ),
    });
    const summaryOf = (result: Record<string, unknown>) => result['trajectory_summary'] as Record<string, unknown>;
    assertStaysUntrusted(
      counts,
      asResult(counts, (result) => ({
        ...result,
        trajectory_summary: { ...summaryOf(result), tool_call_status_counts: 1 },
      })),
      'status-counts-mismatch',
    );
    assertStaysUntrusted(
      counts,
      asResult(counts, (result) => ({ ...result, trajectory_summary: [summaryOf(result)] })),
      'status-counts-mismatch',
    );
    const oracle = fixture('oracle-without-llm');
    assertStaysUntrusted(
      oracle,
      asResult(oracle, (result) => ({ ...result, verifier_error: 5 })),
      'review-training-ready',
    );
    // BenchFlow's result_metadata.py always counts into a dict: null counts are damage, never agreement.
    assertStaysUntrusted(
      counts,
      asResult(counts, (result) => ({
        ...result,
        trajectory_summary: { ...summaryOf(result), tool_call_status_counts: null },
      })),
      'status-counts-mismatch',
    );
    // A summary with no counts is no summary BenchFlow writes: they may be its other key (fuzz seed 7005).
    // No schema finding says so (a summary may gain keys), so the untrust is all that does.
    const renamed = check(
      counts,
      asResult(counts, (result) => ({ ...result, trajectory_summary: { a: 1 } })),
    );
    assert.equal(verdictOf(renamed), 'untrusted', said(renamed).join('\n'));
    assert.ok(codes(renamed).includes('status-counts-mismatch'));
    const healthy = fixture('healthy');
    const { trajectory_summary: _summary, ...withoutSummary } = JSON.parse(healthy.files['result.json']!) as Record<
      string,
      unknown
    >;
    assert.ok(
      !codes(check(healthy, { ...healthy.files, 'result.json': JSON.stringify(withoutSummary, null, 2) })).includes(
        'status-counts-mismatch',
      ),
      'near miss: a result.json with no trajectory_summary claims no counts',
    );
    const noSummary = check(
      healthy,
      asResult(healthy, (result) => ({ ...result, trajectory_summary: null })),
    );
    assert.ok(
      !codes(noSummary).includes('status-counts-mismatch'),
      'near miss: a null trajectory_summary, which the schema allows, claims nothing',
    );
    assert.equal(
      verdictOf(
        check(
          healthy,
          asResult(healthy, (result) => ({ ...result, verifier_error: 'grader crashed' })),
        ),
      ),
      'untrusted',
      'near miss: a readable verifier error contradicts training_ready=true as before',
    );
  });

  it('a damaged info key, an error that is no string, a sandbox_user that is no user name and a missing completeness claim keep their untrust', () => {
    const mismatch = fixture('review-task-mismatch');
    assertStaysUntrusted(
      mismatch,
      withLine(
        mismatch,
        resultsPath,
        (text) => text.includes('"info"'),
        (text) => text.replace('"info":', '"Info":'),
      ),
      'review-task-mismatch',
    );
    const infra = fixture('infra-error-not-reclassified');
    const result = JSON.parse(infra.files['result.json']!) as Record<string, unknown>;
    assert.equal(typeof result['error'], 'string', 'the fixture names its infrastructure error');
    assertStaysUntrusted(
      infra,
      { ...infra.files, 'result.json': JSON.stringify({ ...result, error: true }, null, 2) },
      'review-infra-error',
    );
    // Null under a damaged error key is what is left of the error, not "no error" (fuzz seed 1966116298).
    const damagedInfra = fixture('damaged-key-infra-error');
    assertStaysUntrusted(
      damagedInfra,
      {
        ...damagedInfra.files,
        'result.json': damagedInfra.files['result.json']!.replace(/"erroU": "[^"]*"/, '"erroU": null'),
      },
      'review-infra-error',
    );
    const noError = check(infra, {
      ...infra.files,
      'result.json': JSON.stringify({ ...result, error: null }, null, 2),
    });
    assert.ok(!codes(noError).includes('review-infra-error'), 'near miss: null under the error key itself says none');
    const beforeQuiescence = fixture('verifier-before-quiescence');
    const observation = lineOf(
      beforeQuiescence.files,
      (record) => record['event_type'] === 'SandboxUserQuiescence' && record['final'] === true,
    );
    assertStaysUntrusted(
      beforeQuiescence,
      withRecord(beforeQuiescence.files, observation, (record) => ({
        ...record,
        sandbox_user: `${String(record['sandbox_user'])}${'x'.repeat(300)}!`,
      })),
      'verifier-before-quiescence',
    );
    const contradicted = fixture('terminal-claim-contradicted');
    assertStaysUntrusted(
      contradicted,
      withLine(
        contradicted,
        trajectoryPath,
        (text) => text.includes('"terminal_trajectory_complete":true') && text.includes('agent_timeout'),
        (text) =>
          JSON.stringify(
            Object.fromEntries(
              Object.entries(JSON.parse(text) as Record<string, unknown>).filter(
                ([key]) => key !== 'terminal_trajectory_complete',
              ),
            ),
          ),
      ),
      'terminal-claim-contradicted',
    );
  });

  it('a deleted command, a deleted return_code, a deleted pending list and a task named by a number keep their untrust', () => {
    const conflated = fixture('observation-conflates-failure');
    const observer = lineOf(
      conflated.files,
      (record) => typeof record['command_preview'] === 'string' && String(record['command_preview']).includes('pgrep'),
    );
    assertStaysUntrusted(
      conflated,
      withRecord(conflated.files, observer, ({ command_preview: _, ...record }) => record),
      'untrusted-reward',
    );
    const unobservable = fixture('unobservable');
    const observation = lineOf(unobservable.files, (record) => record['event_type'] === 'SandboxUserQuiescence');
    assertStaysUntrusted(
      unobservable,
      withRecord(unobservable.files, observation, ({ return_code: _, ...record }) => record),
      'quiescence-unobservable',
    );
    const mismatch = fixture('timeout-pending-mismatch');
    assertStaysUntrusted(
      mismatch,
      withLine(
        mismatch,
        trajectoryPath,
        (text) => text.includes('"type":"agent_timeout"'),
        (text) =>
          JSON.stringify(
            Object.fromEntries(
              Object.entries(JSON.parse(text) as Record<string, unknown>).filter(
                ([key]) => key !== 'pending_tool_call_ids',
              ),
            ),
          ),
      ),
      'timeout-pending-mismatch',
    );
    const task = fixture('review-task-mismatch');
    assertStaysUntrusted(
      task,
      withLine(
        task,
        resultsPath,
        (text) => text.includes('"task_id"'),
        (text) => text.replace(/"task_id":"[^"]*"/, '"task_id":0'),
      ),
      'review-task-mismatch',
    );
  });

  /** The fixture with `rows` appended to its trajectory. */
  function withRows(subject: FixtureDefinition, ...rows: readonly Record<string, unknown>[]): Record<string, string> {
    const written = subject.files[trajectoryPath]!.trimEnd();
    return {
      ...subject.files,
      [trajectoryPath]: `${[written, ...rows.map((row) => JSON.stringify(row))].join('\n')}\n`,
    };
  }

  it('two damaged rows are read in combination: one as the timeout marker claiming a complete trajectory, the other as the call it leaves unresolved', () => {
    // An idle timeout, countable as written: nothing claims its trajectory complete, no call is open, and
    // (left out here) no trajectory summary counts what the calls' rows hold.
    const idle = fixture('benchflow-idle-timeout');
    const { trajectory_summary: _, ...result } = JSON.parse(idle.files['result.json']!) as Record<string, unknown>;
    const subject: FixtureDefinition = {
      ...idle,
      files: { ...idle.files, 'result.json': JSON.stringify(result, null, 2) },
    };
    assert.equal(verdictOf(check(subject, subject.files)), 'trusted-timeout', 'the fixture as written');
    // A tool call whose type became [] (it carries no id, so it cannot be read as an annotation either),
    // and a timeout marker whose type became [], which says no call was left pending.
    const call = { type: [], kind: 'execute', title: 'sleep 9999', status: 'in_progress', content: [] };
    const marker = {
      type: [],
      reason: 'wall_clock_timeout',
      pending_tool_call_ids: [],
      terminal_trajectory_complete: true,
    };
    const lines = subject.files[trajectoryPath]!.trimEnd().split('\n').length;
    const both = check(subject, withRows(subject, call, marker));
    assert.equal(verdictOf(both), 'untrusted', said(both).join('\n'));
    const contradiction = `terminal-claim-contradicted terminal_trajectory_complete is true, but the tool_call row on line ${lines + 1} (no tool_call_id) is unresolved. (This holds when the trajectory row on line ${lines + 1}, whose type cannot be taken at its word, is read as a tool_call row and the one on line ${lines + 2} as an agent_timeout row.)`;
    assert.ok(
      said(both).some((text) => text.endsWith(contradiction)),
      said(both).join('\n'),
    );
    // Each alone is damaged evidence, not a contradiction: the combination is what untrusts the rollout.
    for (const alone of [withRows(subject, call), withRows(subject, marker)]) {
      const checked = check(subject, alone);
      assert.equal(verdictOf(checked), 'incomplete', said(checked).join('\n'));
    }
  });

  it('of two rows that may each be the last timeout marker, the earlier is the last when the later is read as what it says', () => {
    // A wall-clock timeout whose marker lists its pending call: incomplete, as the call is unresolved.
    const subject = fixture('tool-pending-after-timeout');
    assert.equal(verdictOf(check(subject, subject.files)), 'incomplete', 'the fixture as written');
    // Two rows of a type no schema knows that carry a marker's keys: the first lists no call, the second lists the pending one.
    const leavesOut = { type: 'nnt_timeout', pending_tool_call_ids: [], terminal_trajectory_complete: false };
    const lists = { type: 'nnt_timeout', pending_tool_call_ids: ['call_02'], terminal_trajectory_complete: false };
    const lines = subject.files[trajectoryPath]!.trimEnd().split('\n').length;
    const checked = check(subject, withRows(subject, leavesOut, lists));
    assert.equal(verdictOf(checked), 'untrusted', said(checked).join('\n'));
    const leftOut = `timeout-pending-mismatch Tool call "call_02" is "in_progress", but the agent_timeout row on line ${lines + 1} does not list it as pending. (This holds when the trajectory row on line ${lines + 1}, whose type cannot be taken at its word, is read as an agent_timeout row.)`;
    assert.ok(
      said(checked).some((text) => text.endsWith(leftOut)),
      said(checked).join('\n'),
    );
    // Near miss: the second row alone is a marker that agrees with the rows.
    assert.equal(verdictOf(check(subject, withRows(subject, lists))), 'incomplete');
  });

  it('near misses: a tool call with an unknown status stays a tool call, and a new type carrying no known keys is read as itself', () => {
    const subject = fixture('healthy');
    const rows = subject.files[trajectoryPath]!;
    assert.match(rows, /"type":"tool_call"/);
    const badStatus = check(subject, {
      ...subject.files,
      [trajectoryPath]: rows.replace(/("type":"tool_call"[^\n]*"status":)"completed"/, '$1"running"'),
    });
    assert.ok(!codes(badStatus).some((code) => code.startsWith('lifecycle-')), codes(badStatus).join(' '));
    assert.ok(
      !said(badStatus).some((text) => text.includes('whose type cannot be taken at its word')),
      said(badStatus).join('\n'),
    );
    const newType = check(subject, {
      ...subject.files,
      [trajectoryPath]: `${rows.endsWith('\n') ? rows : `${rows}\n`}{"type":"agent_plan","entries":[]}\n`,
    });
    assert.equal(verdictOf(newType), 'trusted', said(newType).join('\n'));
  });
});
