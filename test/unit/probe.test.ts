/**
 * The probe's host side without a container: what is refused before anything runs, how its output is
 * read, how an exec that misbehaves is judged (through stand-in engine programs), and the record.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  describeTranscriptEntry,
  summarizeOutcome,
  type ProbeOutcome,
  type ProbeRequest,
} from '../../shared/src/probe';
import { textToAppend } from '../../shared/src/recordAppend';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { listRunningContainers } from '../../server/src/probe/containers';
import { dockerRoute, ContainerEngineUnavailableError } from '../../server/src/probe/containerEngines';
import { appendRecord, quiescenceRecord } from '../../server/src/probe/observationRecord';
import { ProbeOutput } from '../../server/src/probe/probeOutput';
import { checkRequest, runProbe } from '../../server/src/probe/runProbe';
import { checkUser, parseTarget, ProbeUsageError } from '../../server/src/probe/validation';
import { repoRoot, temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
after(() => folder.remove());

/** A folder holding one stand-in engine program: a shell script of the test's own that misbehaves. */
function fakeEngine(folderName: string, script: string, program = 'podman'): string {
  const bin = join(folder.path, folderName);
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, program), `#!/bin/sh\n${script}\n`);
  chmodSync(join(bin, program), 0o755);
  return bin;
}

function probeWith(bin: string, timeoutSeconds = 30): Promise<ProbeOutcome> {
  return runProbe(
    { target: { kind: 'podman', name: 'fake' }, user: 'agent', mode: 'observe', timeoutSeconds },
    { env: { PATH: `${bin}:/usr/bin:/bin` } },
  );
}

describe('probe requests refused before anything runs', () => {
  it('targets: docker:NAME, podman:NAME or local, with engine rules for names', () => {
    assert.deepEqual(parseTarget('docker:web-1'), { kind: 'docker', name: 'web-1' });
    assert.deepEqual(parseTarget('podman:3f2a9c'), { kind: 'podman', name: '3f2a9c' });
    assert.deepEqual(parseTarget('local'), { kind: 'local' });
    for (const bad of [
      'docker:',
      'kube:x',
      'docker:-x',
      'docker:a b',
      'docker:a;touch /tmp/x',
      'docker:$(id)',
      'Docker:x',
      'local:x',
    ]) {
      assert.throws(() => parseTarget(bad), ProbeUsageError, bad);
    }
  });

  it('users: BenchFlow names or a numeric uid, never root', () => {
    for (const good of ['agent', '_x', 'a-b_9', '1000']) assert.equal(checkUser(good), good);
    for (const bad of ['Agent', '-x', '9x', 'agent;touch /tmp/x', 'a b', '', '12345678901'])
      assert.throws(() => checkUser(bad), /must be a name matching/, bad);
    for (const root of ['0', '000']) assert.throws(() => checkUser(root), /uid 0 is root/);
  });

  it('a request as JSON from anywhere: every field checked, and harden given the time its rounds need', () => {
    const base = { target: { kind: 'docker', name: 'c1' }, user: 'agent', mode: 'harden', timeoutSeconds: 60 } as const;
    assert.deepEqual(checkRequest(base, true), { ...base, graceSeconds: 2, dockerAccess: 'auto' });
    const faults: [unknown, RegExp][] = [
      [{ ...base, user: undefined }, /the sandbox user must be a name matching/],
      [{ ...base, target: { kind: 'docker', name: null } }, /a container name or id is letters/],
      [{ ...base, target: { kind: 'kube', name: 'x' } }, /the target kind must be docker, podman or local, not "kube"/],
      [{ ...base, target: null }, /the target kind must be/],
      [{ ...base, mode: 'kill' }, /the mode must be observe or harden/],
      [{ ...base, dockerAccess: 'ssh' }, /docker is reached by auto, cli or engine-api, not "ssh"/],
      [{ ...base, timeoutSeconds: '60' }, /the timeout must be a positive number of seconds up to 3600, not "60"/],
      [{ ...base, timeoutSeconds: 7200 }, /up to 3600/],
      [{ ...base, graceSeconds: 1.5 }, /the grace period must be a whole number/],
      [
        { ...base, graceSeconds: 30 },
        /a timeout of 60 s is too short for harden with a grace of 30 s: its 3 rounds may take 96 s/,
      ],
    ];
    for (const [request, message] of faults)
      assert.throws(() => checkRequest(request as ProbeRequest, true), message, JSON.stringify(request));
    assert.doesNotThrow(
      () => checkRequest({ ...base, mode: 'observe', graceSeconds: 30 }, true),
      'observe sends no signal, so its grace does not matter',
    );
  });

  it('harden on the local target without root is refused with the reason', async () => {
    await assert.rejects(
      runProbe(
        { target: { kind: 'local' }, user: 'agent', mode: 'harden', timeoutSeconds: 60 },
        { env: process.env, localRoot: false },
      ),
      /harden on the local target needs root.*observe still works/,
    );
  });
});

describe('the probe output', () => {
  it('keeps well-formed events and ignores anything else a target prints', () => {
    const output = new ProbeOutput();
    for (const line of [
      'not json',
      '[1,2]',
      '{"event":"start","probe_pid":42}',
      '{"event":"signal","signal":"HUP","pid":5,"round":1}',
      '{"event":"signal","signal":"TERM","pid":5,"round":1,"delivered":true}',
      '{"event":"survivor","pid":"7","ruid":1000,"euid":1000,"suid":1000,"fsuid":1000}',
      '{"event":"survivor","pid":6,"state":"S","ruid":1000,"euid":1000,"name":"sleep","pid1":false}',
      '{"event":"survivor","pid":7,"state":"S","ruid":1000,"euid":0,"suid":0,"fsuid":0,"name":"su","pid1":false}',
      '{"event":"setuid","pid":8,"state":"S","ruid":1000,"euid":0,"suid":0,"fsuid":0,"name":"su","pid1":false}',
      '{"event":"result","return_code":3}',
    ]) {
      output.read(line);
    }
    assert.equal(output.probePid, 42);
    assert.deepEqual(output.signals, [{ signal: 'TERM', pid: 5, round: 1, delivered: true }]);
    assert.deepEqual(
      output.survivors,
      [{ pid: 7, state: 'S', ruid: 1000, euid: 0, suid: 0, fsuid: 0, name: 'su', pid1: false }],
      'a survivor needs all four uids',
    );
    assert.equal(output.result, undefined, 'return code 3 is not one of the contract');
  });

  it('shows commands as argv, quoting only what needs it', () => {
    assert.equal(
      describeTranscriptEntry({
        kind: 'command',
        argv: ['docker', 'exec', '-u', '0', 'c1', 'sh', '-c', '<quiescence probe script>', "it's"],
      }),
      `$ docker exec -u 0 c1 sh -c <quiescence probe script> 'it'\\''s'`,
    );
  });
});

describe('an exec that misbehaves is never quiet', () => {
  it('a result the exit status contradicts: 2', async () => {
    const bin = fakeEngine(
      'contradicts',
      `echo '{"event":"result","return_code":0,"uid":1000,"survivors":0,"reason":"x"}'; exit 1`,
    );
    const outcome = await probeWith(bin);
    assert.equal(outcome.returnCode, 2);
    assert.equal(outcome.reported, false);
    assert.match(outcome.reason, /exit status 1 disagrees with the probe's result 0/);
  });

  it('no result at all: 2, with what the engine said', async () => {
    const bin = fakeEngine('silent', `echo 'Error: no container with name or ID "fake" found' >&2; exit 125`);
    const outcome = await probeWith(bin);
    assert.equal(outcome.returnCode, 2);
    assert.match(
      outcome.reason,
      /the probe gave no result \(exit status 125: Error: no container with name or ID "fake" found\)/,
    );
    assert.match(summarizeOutcome(outcome), /^Could not observe sandbox user "agent" in podman container "fake": /);
  });

  it('an exec that hangs: 2 once the bound passes', async () => {
    const bin = fakeEngine('hangs', 'exec sleep 30');
    const outcome = await probeWith(bin, 0.5);
    assert.equal(outcome.returnCode, 2);
    assert.match(outcome.reason, /did not finish within 0.5 s; nothing was observed/);
  });

  it('a flood of output: stopped at the byte limit, 2, and nothing past it is held or read', async () => {
    const bin = fakeEngine('floods', 'yes \'{"event":"signal","signal":"TERM","pid":5,"round":1}\'');
    const outcome = await probeWith(bin);
    assert.equal(outcome.returnCode, 2);
    assert.match(
      outcome.reason,
      /the exec failed: the target printed more than 4 MiB, far more than the probe ever does/,
    );
    const held = outcome.transcript.reduce(
      (bytes, entry) => bytes + (entry.kind === 'stdout' ? entry.line.length + 1 : 0),
      0,
    );
    assert.ok(held <= 4 * 1024 * 1024, `${held} bytes held`);
    assert.equal(
      outcome.signals.length,
      outcome.transcript.filter((entry) => entry.kind === 'stdout').length,
      'only the lines held were read',
    );
  });

  it('an endless line is read in bounded pieces', async () => {
    const bin = fakeEngine('endless', `head -c 300000 /dev/zero | tr '\\0' x; exit 3`);
    const outcome = await probeWith(bin);
    assert.equal(outcome.returnCode, 2);
    const pieces = outcome.transcript.flatMap((entry) => (entry.kind === 'stdout' ? [entry.line.length] : []));
    assert.ok(
      pieces.every((length) => length <= 4096),
      `pieces: ${pieces.length}`,
    );
    assert.equal(
      pieces.reduce((sum, length) => sum + length, 0),
      300_000,
    );
  });
});

describe('reaching the engines', () => {
  it('runs /bin/sh by its absolute path with PATH set to the system folders, whatever PATH the engine has', async () => {
    // The stand-in engine prints the argv it was given, up to the script, one argument a line.
    const bin = fakeEngine('argv', `printf '%s\\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" >&2; exit 125`);
    const outcome = await probeWith(bin);
    assert.deepEqual(
      outcome.transcript.flatMap((entry) => (entry.kind === 'stderr' ? [entry.line] : [])),
      ['exec', '-u', '0', '-e', 'PATH=/usr/sbin:/usr/bin:/sbin:/bin', 'fake', '/bin/sh', '-c'],
    );
  });

  it('docker: the Engine API when DOCKER_HOST names a unix socket, else the CLI; a clear error with neither', () => {
    assert.deepEqual(dockerRoute('auto', { DOCKER_HOST: 'unix:///run/x.sock', PATH: '' }), {
      kind: 'engine-api',
      socketPath: '/run/x.sock',
    });
    const bin = fakeEngine('docker-cli', 'exit 0', 'docker');
    assert.deepEqual(dockerRoute('auto', { DOCKER_HOST: 'tcp://127.0.0.1:2375', PATH: bin }), {
      kind: 'cli',
      program: join(bin, 'docker'),
    });
    assert.deepEqual(dockerRoute('cli', { DOCKER_HOST: 'unix:///run/x.sock', PATH: bin }), {
      kind: 'cli',
      program: join(bin, 'docker'),
    });
    if (existsSync('/var/run/docker.sock')) return;
    assert.throws(
      () => dockerRoute('auto', { PATH: '' }),
      (error: unknown) =>
        error instanceof ContainerEngineUnavailableError &&
        /looked for the docker CLI on PATH and for the Engine API socket \/var\/run\/docker.sock$/.test(error.message),
    );
    assert.throws(
      () => dockerRoute('engine-api', { DOCKER_HOST: 'tcp://h:1', PATH: '' }),
      /no Docker Engine socket: DOCKER_HOST is "tcp:\/\/h:1", not a unix socket/,
    );
  });

  it('lists no containers with neither engine installed, saying what it looked for', async () => {
    const listing = await listRunningContainers('cli', { PATH: '' });
    assert.deepEqual(listing.containers, []);
    assert.deepEqual(
      listing.unavailable.map((entry) => `${entry.engine}: ${entry.reason}`),
      [
        'docker: docker is not installed: looked for the docker CLI on PATH',
        'podman: podman is not installed: looked for the podman CLI on PATH',
      ],
    );
  });
});

describe('the observation as evidence', () => {
  const outcome: ProbeOutcome = {
    request: { target: { kind: 'docker', name: 'c1' }, user: 'agent', mode: 'harden', timeoutSeconds: 60 },
    returnCode: 1,
    reason: '1 live process(es) of uid 1000 remain',
    uid: 1000,
    signals: [{ signal: 'TERM', pid: 7, round: 1, delivered: true }],
    survivors: [{ pid: 7, state: 'S', ruid: 1000, euid: 1000, suid: 1000, fsuid: 1000, name: 'sleep', pid1: false }],
    reported: true,
    startedAt: '2026-11-30T10:00:00.000Z',
    finishedAt: '2026-11-30T10:00:03.000Z',
    observedAt: '2026-11-30T10:00:03.000Z',
    transcript: [],
  };

  it("says plainly what it found, with the uids of a survivor that holds the user's in only some of them", () => {
    assert.equal(
      summarizeOutcome(outcome),
      '1 survivor of sandbox user "agent" (uid 1000) in docker container "c1": 7 sleep.',
    );
    const mixed = {
      ...outcome,
      survivors: [
        ...outcome.survivors,
        { pid: 9, state: 'S', ruid: 1000, euid: 0, suid: 0, fsuid: 0, name: 'passwd', pid1: false },
      ],
    } as const;
    assert.equal(
      summarizeOutcome(mixed),
      '2 survivors of sandbox user "agent" (uid 1000) in docker container "c1": 7 sleep, 9 passwd (uids real 1000, effective 0, saved 0, filesystem 0).',
    );
    assert.equal(
      summarizeOutcome({ ...outcome, returnCode: 0, survivors: [] }),
      'Quiescent: no live process of sandbox user "agent" (uid 1000) in docker container "c1".',
    );
  });

  it('is a SandboxUserQuiescence record our own schema accepts', () => {
    const line = JSON.stringify(quiescenceRecord(outcome));
    const report = new ArtifactChecker().checkText(`${line}\n`, 'action-records', { maxFindings: 100 });
    assert.deepEqual(report.findings, []);
    assert.equal(JSON.parse(line).event_type, 'SandboxUserQuiescence');
  });

  it('says the probe wrote it, with its target, version, script and a sha256 of its transcript', () => {
    const transcript = [
      { kind: 'command', argv: ['docker', 'exec', 'c1', '/bin/sh', '-c', '<quiescence probe script>'] },
      { kind: 'stdout', line: '{"survivor":7}' },
      { kind: 'exit', status: 'exit status 1' },
    ] as const;
    const record = quiescenceRecord({ ...outcome, transcript });
    assert.equal(record['provenance'], 'probe');
    assert.deepEqual(record['target'], { kind: 'docker', name: 'c1' });
    assert.equal(record['probe_version'], JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version);
    // The transcript as the output channel shows it, one line per entry, computed here independently.
    const shown = '$ docker exec c1 /bin/sh -c <quiescence probe script>\n  {"survivor":7}\n  → exit status 1\n';
    assert.equal(record['transcript_sha256'], createHash('sha256').update(shown).digest('hex'));
    assert.equal(
      record['probe_script_sha256'],
      createHash('sha256')
        .update(readFileSync(join(repoRoot, 'server/src/probe/quiescenceProbe.sh'), 'utf8'))
        .digest('hex'),
    );
    assert.notEqual(
      quiescenceRecord({ ...outcome, transcript: transcript.slice(0, 2) })['transcript_sha256'],
      record['transcript_sha256'],
      'another transcript, another digest',
    );
  });

  it('is appended as one new line, ending an unterminated last line first and never rewriting it', () => {
    assert.equal(textToAppend('', '{}'), '{}\n');
    assert.equal(textToAppend('\n', '{}'), '{}\n');
    assert.equal(textToAppend('}', '{}'), '\n{}\n');
    const existing = join(folder.path, 'rollout/benchguard/action_records.jsonl');
    appendRecord(existing, { event_type: 'first' });
    writeFileSync(existing, `${readFileSync(existing, 'utf8')}{"event_type":"unterminated"}`);
    const before = readFileSync(existing, 'utf8');
    appendRecord(existing, quiescenceRecord(outcome));
    const after = readFileSync(existing, 'utf8');
    assert.ok(after.startsWith(`${before}\n`));
    assert.deepEqual(
      after
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { event_type: string }).event_type),
      ['first', 'unterminated', 'SandboxUserQuiescence'],
    );
  });
});
