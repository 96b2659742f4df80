import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  analyseCommand,
  meaningOfStatus,
  type CommandEvidence,
  type StatusMeaning,
} from '../../server/src/engine/shell/evidence';
import { parseShell } from '../../server/src/engine/shell/parse';
import {
  maximumCommands,
  maximumFindingsPerCommand,
  ShellBoundExceeded,
  ShellSyntaxError,
  type Span,
} from '../../server/src/engine/shell/syntax';
import { runCommands } from '../../server/src/engine/shell/walk';
import { benchflowQuiescence } from '../support/commandGenerator';

const agent = { name: 'agent', uid: 1001 };

function analyse(command: string): CommandEvidence {
  return analyseCommand(command, agent);
}

/** The text each span covers. */
/** The last observation runs after the last kill attempt. */
function observesAfterKilling(evidence: CommandEvidence): boolean {
  const kinds = evidence.events.map((event) => event.kind);
  return kinds.lastIndexOf('observation') > kinds.lastIndexOf('kill');
}

function texts(command: string, spans: readonly Span[]): string[] {
  return spans.map((span) => command.slice(span.start, span.end));
}

describe('shell parsing', () => {
  it('reads quotes, escapes and substitutions as the shell does', () => {
    const command = `echo 'a;b' "c \\"d\\" $(pgrep -u agent)" e\\ f`;
    const [run] = runCommands(parseShell(command)).slice(-1);
    assert.deepEqual(
      run!.command.words.map((word) => word.text),
      ['echo', 'a;b', 'c "d" $(pgrep -u agent)', 'e f'],
    );
    assert.deepEqual(
      runCommands(parseShell(command)).map((r) => r.command.words[0]!.text),
      ['pgrep', 'echo'],
      'the substitution runs first',
    );
  });

  it('keeps redirections and io numbers out of the arguments', () => {
    const [run] = runCommands(parseShell('pgrep -u agent > /dev/null 2>&1 < /dev/null'));
    assert.deepEqual(
      run!.command.words.map((word) => word.text),
      ['pgrep', '-u', 'agent'],
    );
    assert.deepEqual(
      run!.command.redirections.map((r) => [r.descriptor, r.operator]),
      [
        [undefined, '>'],
        [2, '>&'],
        [undefined, '<'],
      ],
    );
  });

  it('reads what dash reads, and refuses what it refuses', () => {
    // Each checked against dash -n and busybox sh -n.
    for (const accepted of [
      '{ :; } 2>/dev/null && :',
      'while :; do :; done 2>&1',
      'f() { :; } 2>/dev/null',
      'x=$( case a in a) echo;; esac )',
      'echo ${x:-$(echo })}',
      'for x do :; done',
      'case a in (a) ;; esac',
      'cat <<E',
      'a &>x',
      'echo `echo a )`',
      'case x in x) { :; } >/dev/null esac',
    ]) {
      assert.doesNotThrow(() => parseShell(accepted), accepted);
    }
    for (const refused of [
      'if true; then fi',
      '{ }',
      '! ! true',
      'true | ! false',
      'foo-bar() { :; }',
      'for 1 in a; do :; done',
      'cat <<< x',
      'in',
      'case x in x) a;; ;; esac',
      'cat <<E\n$(echo\nE',
      '{ { true; } >/dev/null }',
      'if { :; } >/dev/null then :; fi',
    ]) {
      assert.throws(() => parseShell(refused), ShellSyntaxError, refused);
    }
  });

  it('parses if, loops, case, groups, subshells, functions and here-documents', () => {
    const command = [
      'live() { for d in /proc/[0-9]*; do cat "$d/status"; done; }',
      'if [ -d /x ]; then echo a; elif true; then echo b; else echo c; fi',
      'while false; do :; done; until true; do :; done',
      'case "$1" in a|b) echo ab ;; *) echo other ;; esac',
      '{ echo g; } > /dev/null; (echo s)',
      'cat <<EOF',
      'pkill -u agent',
      'EOF',
      'live',
    ].join('\n');
    const names = runCommands(parseShell(command)).map((run) => run.command.words[0]!.text);
    // The function's body runs where it is called: after the call itself, at the end.
    assert.deepEqual(names, [
      '[',
      'echo',
      'true',
      'echo',
      'echo',
      'false',
      ':',
      'true',
      ':',
      'echo',
      'echo',
      'echo',
      'echo',
      'cat',
      'live',
      'cat',
    ]);
  });

  it('removes a backslash-newline as a line continuation, in and out of double quotes', () => {
    for (const command of ['pkill -u ag\\\nent', 'pkill -u "ag\\\nent"']) {
      const [run] = runCommands(parseShell(command));
      assert.deepEqual(
        run!.command.words.map((word) => word.text),
        ['pkill', '-u', 'agent'],
        command,
      );
      assert.deepEqual(texts(command, analyse(command).kills), [command], command);
    }
  });

  it('keeps a backslash that ends the text as written, and its span within the text', () => {
    const [run] = runCommands(parseShell('echo \\'));
    const word = run!.command.words[1]!;
    assert.deepEqual([word.text, word.start, word.end], ['\\', 5, 6]);
  });

  it('reports unbalanced quotes and unclosed constructs at the place they open', () => {
    for (const [command, offset] of [
      [`pkill -u 'agent`, 9],
      [`echo "a $(pgrep -u agent`, 8],
      ['if true; then echo', 18],
      ['echo `date', 5],
      ['(echo a', 7],
    ] as const) {
      assert.throws(
        () => parseShell(command),
        (error: unknown) => error instanceof ShellSyntaxError && error.offset === offset,
        command,
      );
    }
  });
});

describe('what a recorded exit status means', () => {
  // Each a class the issue names; the real-shell test checks every claim against dash and busybox sh.
  const cases: Record<string, [number, StatusMeaning][]> = {
    'pgrep -u agent': [
      [1, 'quiescent'],
      [0, 'survivors'],
      [2, 'unobservable'],
    ],
    '! pgrep -u agent': [
      [0, 'conflated'],
      [1, 'survivors'],
    ],
    'pgrep -u agent && exit 1 || exit 0': [[0, 'conflated']],
    'if pgrep -u agent; then exit 1; fi; exit 0': [[0, 'conflated']],
    'if pgrep -u agent; then exit 1; fi': [[0, 'conflated']],
    's=$(pgrep -u agent); [ -z "$s" ]': [[0, 'conflated']],
    'pgrep -u agent >/dev/null; [ $? -eq 1 ]': [[0, 'quiescent']],
    '{ pgrep -u agent >/dev/null; [ "$?" = 1 ]; }': [[0, 'quiescent']],
    '( pgrep -u agent >/dev/null; test $? -eq 1 )': [[0, 'quiescent']],
    'pgrep -u agent >/dev/null; rc=$?; [ "$rc" -eq 1 ] || exit 2': [
      [0, 'quiescent'],
      [2, 'unobservable'],
    ],
    'pgrep -u agent >/dev/null; case $? in 1) exit 0;; 0) exit 1;; *) exit 2;; esac': [
      [0, 'quiescent'],
      [1, 'survivors'],
      [2, 'unobservable'],
    ],
    'pkill -9 -u agent; pgrep -u agent; true': [[0, 'unknown']],
    // ps exits 1 both when it finds none and when it fails: its 1 proves nothing.
    'ps -u agent': [
      [0, 'survivors'],
      [1, 'conflated'],
    ],
  };
  for (const [command, expected] of Object.entries(cases)) {
    it(command, () => {
      const evidence = analyse(command);
      assert.deepEqual(
        expected.map(([status]) => [status, meaningOfStatus(evidence, status)]),
        expected,
      );
    });
  }

  it('points at the command that conflates, on its exact characters', () => {
    const command = 'pgrep -u agent >/dev/null && exit 1 || exit 0';
    assert.deepEqual(texts(command, analyse(command).conflating), ['exit 0']);
    const negated = '! pgrep -u agent';
    assert.deepEqual(texts(negated, analyse(negated).conflating), ['pgrep -u agent']);
  });

  it('follows set -e both ways, as shells differ on where it applies', () => {
    assert.equal(meaningOfStatus(analyse('set -e; pgrep -u agent >/dev/null; exit 0'), 0), 'unknown');
  });
});

describe('command evidence', () => {
  it('BenchFlow’s first hardening command: kill attempts only, nothing to flag', () => {
    const command = 'pkill -u agent 2>/dev/null; sleep 1; pkill -9 -u agent 2>/dev/null || true';
    const evidence = analyse(command);
    assert.deepEqual(texts(command, evidence.kills), ['pkill -u agent 2>/dev/null', 'pkill -9 -u agent 2>/dev/null']);
    assert.deepEqual(evidence.observations, []);
    assert.deepEqual(evidence.masking, [], 'a pure kill command is not flagged: its status is not evidence');
    assert.equal(evidence.setupOnly, false);
  });

  it('BenchFlow’s second hardening command: observes before its last kill, and sleep 1 supplies the status', () => {
    const command = '! pgrep -u agent > /dev/null 2>&1 || (sleep 1 && pkill -9 -u agent; sleep 1)';
    const evidence = analyse(command);
    assert.deepEqual(texts(command, evidence.observations), ['pgrep -u agent > /dev/null 2>&1']);
    assert.deepEqual(texts(command, evidence.kills), ['pkill -9 -u agent']);
    assert.equal(observesAfterKilling(evidence), false);
    assert.deepEqual(evidence.masking, [
      { start: command.lastIndexOf('sleep 1'), end: command.lastIndexOf('sleep 1') + 'sleep 1'.length },
    ]);
    assert.equal(meaningOfStatus(evidence, 0), 'unknown');
  });

  it('a command that ends on its observation after killing reports it, and tells none from a failure only by testing for 1', () => {
    const negated = 'pkill -u agent; sleep 1; pkill -9 -u agent; ! pgrep -u agent >/dev/null';
    assert.equal(observesAfterKilling(analyse(negated)), true);
    assert.deepEqual(analyse(negated).masking, []);
    assert.equal(meaningOfStatus(analyse(negated), 0), 'conflated');
    const tested = 'pkill -u agent; sleep 1; pkill -9 -u agent; pgrep -u agent >/dev/null; [ $? -eq 1 ]';
    assert.equal(meaningOfStatus(analyse(tested), 0), 'quiescent');
  });

  it('knows that plain pgrep succeeds when it finds processes', () => {
    assert.equal(meaningOfStatus(analyse('pgrep -u agent'), 0), 'survivors');
    assert.equal(meaningOfStatus(analyse('pgrep -u 1001 >/dev/null'), 0), 'survivors');
  });

  it('flags a trailing || true after an observation', () => {
    const command = '! pgrep -u agent || true';
    assert.deepEqual(texts(command, analyse(command).masking), ['true']);
  });

  it('does not take exits decided by pgrep failing for proof: a failure fails the same way', () => {
    for (const command of [
      'if pgrep -u agent >/dev/null; then exit 1; fi',
      'pgrep -u agent >/dev/null && exit 1; exit 0',
      'pgrep -u agent >/dev/null || exit 0; exit 1',
      'survivors=$(pgrep -u agent); [ -z "$survivors" ]',
      'if [ -n "$(pgrep -u agent)" ]; then echo survivors; exit 1; else exit 0; fi',
    ]) {
      const evidence = analyse(command);
      assert.deepEqual(texts(command, evidence.masking), [], command);
      assert.equal(meaningOfStatus(evidence, 0), 'conflated', command);
    }
  });

  it('reads a command of the other polarity honestly: 0 for survivors, and 1 both for none and for a failure', () => {
    const command = 'pgrep -u agent >/dev/null && exit 0; exit 1';
    const evidence = analyse(command);
    assert.deepEqual(texts(command, evidence.masking), []);
    assert.deepEqual([meaningOfStatus(evidence, 0), meaningOfStatus(evidence, 1)], ['survivors', 'conflated']);
    assert.deepEqual(texts(command, evidence.conflating), ['exit 1']);
    const unobservable = 'uid=$(id -u agent) || exit 2; ! pgrep -u "$uid"';
    assert.deepEqual(texts(unobservable, analyse(unobservable).masking), []);
  });

  it('reads a /proc scan that prints every entry as kill attempts, then an observation that finds survivors whatever is there', () => {
    const command = [
      'uid=$(id -u agent) || exit 2',
      'live() {',
      '  for d in /proc/[0-9]*; do',
      '    status=$(cat "$d/status" 2>/dev/null) || continue',
      '    echo "$status"',
      '  done',
      '}',
      'for sig in TERM KILL; do',
      '  survivors=$(live) || exit 2',
      '  [ -z "$survivors" ] && exit 0',
      '  for pid in $survivors; do kill -s "$sig" "$pid"; done',
      '  sleep 1',
      'done',
      'survivors=$(live) || exit 2',
      '[ -z "$survivors" ] && exit 0',
      'echo "Sandbox-user writers remain: $survivors"',
      'exit 1',
    ].join('\n');
    const evidence = analyse(command);
    assert.ok(evidence.kills.length > 0);
    assert.ok(evidence.observations.length > 0);
    assert.equal(observesAfterKilling(evidence), true);
    // It prints every status file, the root process's too, so it ends with 1 when nothing is left as well.
    assert.deepEqual(texts(command, evidence.masking), ['exit 1']);
    assert.equal(meaningOfStatus(evidence, 1), 'unknown');
  });

  it('reads BenchFlow’s later quiescence command as a proof: 0 none, 1 survivors, 2 could not observe', () => {
    const evidence = analyse(benchflowQuiescence);
    assert.equal(evidence.syntaxError, undefined);
    assert.equal(observesAfterKilling(evidence), true);
    assert.deepEqual(
      [0, 1, 2].map((status) => meaningOfStatus(evidence, status)),
      ['quiescent', 'survivors', 'unobservable'],
    );
    assert.deepEqual(evidence.masking, []);
  });

  it('finds kills and observations through wrappers, substitutions and nested shells', () => {
    assert.equal(analyse('sudo -u root timeout 10 pkill -u agent').kills.length, 1);
    assert.equal(observesAfterKilling(analyse('kill -9 $(pgrep -u agent)')), false);
    assert.equal(analyse('pgrep -u agent | xargs -r kill -9').kills.length, 1);
    assert.equal(analyse('killall -u agent').kills.length, 1);
    const nested = `bash -lc 'pkill -u agent; sleep 1; ! pgrep -u agent'`;
    const evidence = analyse(nested);
    assert.deepEqual(texts(nested, evidence.observations), ['pgrep -u agent']);
    assert.equal(observesAfterKilling(evidence), true);
    assert.equal(meaningOfStatus(evidence, 0), 'conflated');
    const masked = `su root -c 'pkill -u agent; ! pgrep -u agent; sleep 1'`;
    assert.deepEqual(texts(masked, analyse(masked).masking), ['sleep 1']);
  });

  it('does not mistake quoted text, other users, or liveness probes for kills and observations', () => {
    for (const command of [
      'echo "pkill -u agent"',
      'pkill -u root sshd',
      'pgrep -u root',
      'kill -0 1234',
      'grep pgrep notes.txt',
    ]) {
      const evidence = analyse(command);
      assert.deepEqual([evidence.kills.length, evidence.observations.length], [0, 0], command);
    }
  });

  it('tells setup-only commands from grading attempts', () => {
    const setup = [
      'mkdir -p /logs/verifier && chmod 777 /logs/verifier',
      'if [ -L /logs/verifier ]; then rm -f /logs/verifier; fi; mkdir -p /logs/verifier; find /logs/verifier -mindepth 1 -exec rm -rf -- {} + 2>/dev/null || rm -rf /logs/verifier/*; chmod 777 /logs/verifier',
      'mkdir -p /app',
      'chmod +x /tests/test.sh',
      'wc -c < /logs/verifier/test-stdout.txt',
      'touch /logs/verifier/.ready; true',
    ];
    for (const command of setup) assert.equal(analyse(command).setupOnly, true, command);
    for (const command of [
      'bash /tests/test.sh > /logs/verifier/test-stdout.txt 2>&1',
      'cd /app && pytest -q /tests',
      'echo 1 > /logs/verifier/reward.txt',
      'find /logs/verifier',
    ]) {
      assert.equal(analyse(command).setupOnly, false, command);
    }
  });

  it('returns a syntax error for text it cannot read', () => {
    const evidence = analyse(`pkill -u "agent`);
    assert.deepEqual(evidence.syntaxError, { message: 'unterminated double quote', offset: 9 });
    assert.deepEqual([evidence.kills, evidence.observations, evidence.setupOnly], [[], [], false]);
  });

  it('copes with a 1 MB command of a few commands', () => {
    const command = `echo ${'x'.repeat(1_000_000)}; pgrep -u agent >/dev/null; [ $? -eq 1 ]`;
    const evidence = analyse(command);
    assert.equal(meaningOfStatus(evidence, 0), 'quiescent');
  });
});

// Commands come from untrusted artifact files: text built to overflow the stack or to expand without
// end must come back promptly, as evidence or as a syntax error that says why.
describe('hostile command text', () => {
  const tooDeep = 'nested more than 200 levels deep';
  const tooComplex = 'too complex to analyse: function calls and nested scripts expand to more than 10000 words';

  it('refuses nesting deeper than 200 levels, at the first level too deep', () => {
    const cases: [string, number][] = [
      [`${'('.repeat(5000)}pgrep -u agent${')'.repeat(5000)}`, 200],
      [`${'echo $('.repeat(3000)}pgrep -u agent${')'.repeat(3000)}`, 'echo $('.length * 200],
      [`${'f() '.repeat(5000)}pgrep -u agent`, 'f() '.length * 200],
      // Substitutions count the levels around them: 150 subshells leave room for 49 more.
      [`${'('.repeat(150)}${'echo $('.repeat(100)}pgrep -u agent${')'.repeat(250)}`, 150 + 'echo $('.length * 50],
    ];
    for (const [command, offset] of cases) {
      assert.deepEqual(
        analyse(command).syntaxError,
        { message: tooDeep, offset, tooComplex: true },
        command.slice(0, 20),
      );
    }
  });

  it('reads nesting within the limit', () => {
    for (const command of [
      `${'('.repeat(150)}pgrep -u agent${')'.repeat(150)}`,
      `${'echo $('.repeat(150)}pgrep -u agent${')'.repeat(150)}`,
    ]) {
      const evidence = analyse(command);
      assert.equal(evidence.syntaxError, undefined);
      assert.deepEqual(texts(command, evidence.observations), ['pgrep -u agent']);
    }
  });

  it('reads a command of 300,000 words', () => {
    const command = `pkill -u agent${' x'.repeat(300_000)}`;
    assert.deepEqual(analyse(command).kills, [{ start: 0, end: command.length }]);
  });

  it('gives up on function calls that double at every level', () => {
    const definitions = ['f0() { pgrep -u agent; }'];
    for (let level = 1; level <= 30; level++) definitions.push(`f${level}() { f${level - 1}; f${level - 1}; }`);
    const evidence = analyse(`${definitions.join('; ')}; f30`);
    assert.equal(evidence.syntaxError?.message, tooComplex);
    assert.deepEqual([evidence.kills, evidence.observations], [[], []]);
  });

  it('gives up on nested scripts that double at every level', () => {
    let command = 'pgrep -u agent';
    for (let level = 0; level < 30; level++) command = `sh -c "$(${command})"`;
    assert.equal(analyse(command).syntaxError?.message, tooComplex);
  });

  it('refuses function calls nested more than 200 levels deep', () => {
    const definitions = ['f0() { pgrep -u agent; }'];
    // Three commands each (the definition, its group, the call in it), within the bound on commands.
    for (let level = 1; level <= 300; level++) definitions.push(`f${level}() { f${level - 1}; }`);
    assert.equal(
      analyse(`${definitions.join('\n')}\nf300`).syntaxError?.message,
      'function calls nested more than 200 levels deep',
    );
    const shallow = `${definitions.slice(0, 50).join('\n')}\nf49`;
    assert.deepEqual(texts(shallow, analyse(shallow).observations), ['pgrep -u agent']);
  });

  it('reads a here-document delimiter once, however deeply its substitutions nest', () => {
    const command = `${'cat <<$('.repeat(30)}x${')'.repeat(30)}`;
    assert.equal(analyse(command).syntaxError, undefined);
    assert.equal(runCommands(parseShell(command)).length, 31);
  });

  it('reads as many kill attempts as the bound on commands allows in a nested script, and one more is too complex', () => {
    assert.equal(analyse(`sh -c '${'kill;'.repeat(maximumCommands)}'`).kills.length, maximumCommands);
    assert.deepEqual(analyse(`sh -c '${'kill;'.repeat(maximumCommands + 1)}'`).syntaxError, {
      message: `more than ${maximumCommands} commands`,
      offset: 7 + 5 * maximumCommands,
      tooComplex: true,
    });
  });

  it('lists the first masking commands up to the bound on findings, and counts the rest', () => {
    const evidence = analyse(`sh -c 'pgrep -u agent; ${'a || '.repeat(900)}a'`);
    assert.equal(evidence.masking.length, maximumFindingsPerCommand);
    assert.equal(evidence.findingsLeftOut, 901 - maximumFindingsPerCommand);
    const within = analyse(`pgrep -u agent; ${'a || '.repeat(maximumFindingsPerCommand - 1)}a`);
    assert.deepEqual([within.masking.length, within.findingsLeftOut], [maximumFindingsPerCommand, 0]);
  });

  it('checks a long for loop over /proc once, not for every command in its body', () => {
    const command = `for pid in ${'a '.repeat(200_000)}/proc/[0-9]*; do ${':;'.repeat(maximumCommands - 1)} done`;
    assert.equal(analyse(command).observations.length, maximumCommands - 1);
  });
});

// The bounds of syntax.ts, for every way text can nest: whatever the depth, the analysis comes back with
// evidence or a reason, never a stack overflow, and under the issue's ceiling of 2 s of CPU for text
// under 1 MB (CPU time, not wall time: the suite runs beside other work).
describe('bounds on nesting, for every construct that nests', () => {
  const observation = 'pgrep -u agent';
  /** Each builds text nesting `levels` deep; `deep` says whether it nests commands (and so is refused past the bound). */
  const constructs: { name: string; build: (levels: number) => string; deep: boolean }[] = [
    { name: '$( unclosed, as the fuzzer wrote it', build: (levels) => '$('.repeat(levels), deep: true },
    { name: '$( )', build: (levels) => `${'echo $('.repeat(levels)}${observation}${')'.repeat(levels)}`, deep: true },
    { name: '( )', build: (levels) => `${'('.repeat(levels)}${observation}${')'.repeat(levels)}`, deep: true },
    { name: '{ }', build: (levels) => `${'{ '.repeat(levels)}${observation}${'; }'.repeat(levels)}`, deep: true },
    {
      name: 'backquotes holding $( )',
      build: (levels) => `\`echo ${'echo $('.repeat(levels)}${observation}${')'.repeat(levels)}\``,
      deep: true,
    },
    { name: 'backquotes side by side', build: (levels) => `echo ${'``'.repeat(levels)}`, deep: false },
    { name: '${ }', build: (levels) => `echo ${'${a:-'.repeat(levels)}x${'}'.repeat(levels)}`, deep: true },
    {
      name: '"${ }" in quotes',
      build: (levels) => `echo ${'"${a:-'.repeat(levels)}x${'}"'.repeat(levels)}`,
      deep: true,
    },
    { name: '$(( ))', build: (levels) => `echo $((${'('.repeat(levels)}1${')'.repeat(levels)}))`, deep: false },
    {
      name: 'here-document delimiters',
      build: (levels) => `${'cat <<$('.repeat(levels)}x${')'.repeat(levels)}`,
      deep: true,
    },
    {
      name: 'an expanding here-document body',
      build: (levels) => `cat <<E\n${'$('.repeat(levels)}x${')'.repeat(levels)}\nE\n`,
      deep: true,
    },
    {
      name: 'if',
      build: (levels) => `${'if true; then '.repeat(levels)}${observation}${'; fi'.repeat(levels)}`,
      deep: true,
    },
    {
      name: 'while',
      build: (levels) => `${'while true; do '.repeat(levels)}${observation}${'; done'.repeat(levels)}`,
      deep: true,
    },
    {
      name: 'case',
      build: (levels) => `${'case x in x) '.repeat(levels)}${observation}${';; esac'.repeat(levels)}`,
      deep: true,
    },
    { name: 'function bodies', build: (levels) => `${'f() '.repeat(levels)}${observation}`, deep: true },
  ];

  for (const levels of [700, 5_000, 50_000]) {
    it(`comes back from ${levels.toLocaleString('en')} levels of each, too complex where commands nest`, () => {
      for (const { name, build, deep } of constructs) {
        const text = build(levels);
        const before = process.cpuUsage();
        const evidence = analyse(text);
        const cpu = process.cpuUsage(before);
        if (deep)
          assert.deepEqual(
            [evidence.syntaxError?.message, evidence.syntaxError?.tooComplex],
            ['nested more than 200 levels deep', true],
            name,
          );
        else assert.equal(evidence.syntaxError?.tooComplex, undefined, name);
        if (text.length < 1_000_000)
          assert.ok(cpu.user + cpu.system < 2_000_000, `${name}: ${(cpu.user + cpu.system) / 1000} ms of CPU`);
      }
    });
  }

  it('reads each construct nested just within the bound', () => {
    for (const { name, build, deep } of constructs) {
      if (!deep) continue;
      // Each level of these is one level of the bound, or two (a `$(` holds a list in a command), so 90 is within 200.
      const evidence = analyse(build(90));
      assert.notEqual(evidence.syntaxError?.tooComplex, true, `${name}: ${evidence.syntaxError?.message}`);
    }
  });

  it('throws ShellBoundExceeded, not a syntax error, from the parser', () => {
    assert.throws(
      () => parseShell('$('.repeat(700)),
      (error: unknown) => error instanceof ShellBoundExceeded && !(error instanceof ShellSyntaxError),
    );
  });
});

describe('bounds on commands', () => {
  it(`reads ${maximumCommands} commands and refuses one more where it starts, without reading the rest`, () => {
    assert.equal(analyse(`${'true; '.repeat(maximumCommands - 1)}pgrep -u agent`).observations.length, 1);
    const over = `${'true; '.repeat(maximumCommands)}pgrep -u agent; ${'x'.repeat(100)} '`;
    // The unterminated quote after the bound is never read: the bound is the finding, not the quote.
    assert.deepEqual(analyse(over).syntaxError, {
      message: `more than ${maximumCommands} commands`,
      offset: 'true; '.length * maximumCommands,
      tooComplex: true,
    });
  });

  it('stops the run in three worlds at its budget of work, keeping the kills and observations it found', () => {
    // 200,000 iterations of an observing loop body: far more work than the fixed budget per world.
    const evidence = analyse(
      `pkill -u agent; for pid in ${'a '.repeat(200_000)}/proc/[0-9]*; do [ -r /proc/$pid/status ]; done`,
    );
    assert.equal(evidence.syntaxError?.tooComplex, true);
    assert.match(evidence.syntaxError!.message, /^more paths than the analysis follows/);
    assert.deepEqual([evidence.kills.length, evidence.observations.length], [1, 1]);
    assert.equal(meaningOfStatus(evidence, 0), 'unknown');
  });

  it('analyses the measured hostile inputs of issue 11 under 2 s of CPU each', () => {
    const inputs = {
      'true && x12,000 before pgrep': `${'true && '.repeat(12_000)}pgrep -u agent`,
      'a && x12,000 after pgrep (12,000 masking commands)': `pgrep -u agent; ${'a && '.repeat(12_000)}a`,
      'a || x200,000 before pgrep': `${'a || '.repeat(200_000)}pgrep -u agent`,
      'pgrep -u agent; to 1 MB': 'pgrep -u agent; '.repeat(62_500),
      'v=$(a); to 1 MB': Array.from({ length: 50_000 }, (_, index) => `v${index}=$(a); `).join(''),
      'one word of 1 MB': `pgrep -u agent ${'x'.repeat(1_000_000)}`,
      'function calls that double, padded to 1 MB': `f0() { pgrep -u agent; }; ${Array.from({ length: 30 }, (_, index) => `f${index + 1}() { f${index}; f${index}; }; `).join('')}f30; echo ${'x'.repeat(1_000_000)}`,
    };
    for (const [name, text] of Object.entries(inputs)) {
      const before = process.cpuUsage();
      const evidence = analyse(text);
      const cpu = process.cpuUsage(before);
      assert.ok(cpu.user + cpu.system < 2_000_000, `${name}: ${(cpu.user + cpu.system) / 1000} ms of CPU`);
      assert.ok(evidence.masking.length + evidence.conflating.length <= maximumFindingsPerCommand, name);
    }
  });
});
