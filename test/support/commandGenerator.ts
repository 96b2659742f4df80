/**
 * Hardening-style shell commands for testing the shell analyser against real shells: BenchFlow's own
 * commands, hand-written cases the analyser must get right, a seeded generator over the grammar that
 * hardening commands use, and syntactically broken mutations for comparing our parser with `dash -n`.
 *
 * Every command is safe to run where test/support/shellWorlds.ts runs it: it only calls the stubbed
 * programs (pgrep, pkill, killall, ps, id, wc, kill, sleep) and shell builtins, and every loop is
 * bounded, so no command can run forever or touch the real system.
 */
import type { SeededRandom } from './random';

export type CommandOrigin = 'benchflow' | 'hand-written' | 'generated' | 'parse-case' | 'mutation';

export interface CorpusCommand {
  readonly text: string;
  readonly origin: CommandOrigin;
  /** For the long hand-written commands: what to call them in a report. */
  readonly name?: string;
}

/** The PATH BenchFlow's lockdown.py exports ahead of its command; the runner swaps it for the stub directory. */
export const benchflowPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** BenchFlow #1078: masked by its final `sleep 1`, and `!` also turns pgrep's failure (2) into 0. */
export const benchflow1078 = '! pgrep -u agent > /dev/null 2>&1 || (sleep 1 && pkill -9 -u agent; sleep 1)';

/** The first exec of BenchFlow's later lockdown.py (after PR #1088), with __USER__ as `agent`. */
export const benchflowFirstExec =
  'uid=$(id -u agent 2>/dev/null) || exit 2; case "$uid" in ""|*[!0-9]*|0) echo "Invalid sandbox UID" >&2; exit 2;; esac; pkill -u agent 2>/dev/null; sleep 1; pkill -9 -u agent 2>/dev/null || true';

/**
 * The quiescence command of BenchFlow's later lockdown.py, with __USER__ as `agent`: a /proc scan in a
 * TERM/KILL loop that exits 0 only when the scan found none, 1 for survivors and 2 when it cannot look.
 * The runner points /proc at a fixture tree per world; the analyser reads this text as it is.
 */
export const benchflowQuiescence = `uid=$(id -u agent 2>/dev/null) || exit 2
case "$uid" in ''|*[!0-9]*|0) echo 'Invalid sandbox UID' >&2; exit 2 ;; esac
if [ ! -r /proc/self/status ]; then
    echo 'Process table is unavailable' >&2
    exit 2
fi
live() {
    for entry in /proc/[0-9]*; do
        pid=\${entry##*/}
        case "$pid" in ''|*[!0-9]*) continue ;; esac
        state=
        euid=
        if { while read -r key first second rest || [ -n "$key" ]; do
                case "$key" in
                    State:) state=$first ;;
                    Uid:) euid=$second ;;
                esac
                key=
            done <"$entry/status"; } 2>/dev/null &&
            [ -n "$state" ] && [ -n "$euid" ]; then
            if [ "$euid" = "$uid" ] && [ "$state" != Z ]; then echo "$pid"; fi
        elif [ -d "$entry" ]; then
            echo "Cannot inspect process $pid" >&2
            return 2
        fi
    done
    return 0
}
for sig in TERM KILL; do
    survivors=$(live) || exit 2
    [ -n "$survivors" ] || exit 0
    for pid in $survivors; do kill -s "$sig" "$pid" 2>/dev/null; done
    sleep 1
done
survivors=$(live) || exit 2
[ -n "$survivors" ] || exit 0
echo 'Sandbox-user writers remain:' $survivors >&2
exit 1`;

/** BenchFlow's commands, and the cases the issue names, each of which the analyser must judge right. */
export function handWrittenCommands(): CorpusCommand[] {
  const benchflow: CorpusCommand[] = [
    { text: benchflow1078, origin: 'benchflow', name: 'BenchFlow #1078 command' },
    { text: 'pkill -u agent 2>/dev/null; sleep 1; pkill -9 -u agent 2>/dev/null || true', origin: 'benchflow' },
    { text: benchflowFirstExec, origin: 'benchflow', name: "BenchFlow's later first exec" },
    { text: benchflowQuiescence, origin: 'benchflow', name: "BenchFlow's later quiescence command" },
    {
      text: `export PATH='${benchflowPath}'; ${benchflowQuiescence}`,
      origin: 'benchflow',
      name: "BenchFlow's later quiescence command, after export PATH",
    },
    // The issue describes the later command as wrapped in `{ …; } 2>/dev/null`.
    {
      text: `{ ${benchflowQuiescence}; } 2>/dev/null`,
      origin: 'benchflow',
      name: "BenchFlow's later quiescence command in { …; } 2>/dev/null",
    },
  ];
  // Near misses of BenchFlow's later command, each of which reaches 0 when the scan cannot look.
  const nearMiss = (name: string, text: string): CorpusCommand => {
    if (text === benchflowQuiescence) throw new Error(`the near miss "${name}" left BenchFlow's command unchanged`);
    return { text, origin: 'hand-written', name: `BenchFlow's later command, near miss: ${name}` };
  };
  const nearMisses = [
    nearMiss(
      'no scan checks its status',
      benchflowQuiescence.split('survivors=$(live) || exit 2').join('survivors=$(live)'),
    ),
    nearMiss(
      'an unreadable entry is skipped',
      benchflowQuiescence.replace(/\n {8}elif \[ -d "\$entry" \]; then\n.*\n.*return 2/, ''),
    ),
    nearMiss(
      'the last scan is unchecked',
      benchflowQuiescence.replace(
        /survivors=\$\(live\) \|\| exit 2\n\[ -n "\$survivors" \] \|\| exit 0\necho/,
        'survivors=$(live)\n[ -n "$survivors" ] || exit 0\necho',
      ),
    ),
  ];
  const cases = [
    // Honest proofs: 0 only when pgrep said "none" (1).
    'pgrep -u agent >/dev/null; [ $? -eq 1 ]',
    '{ pgrep -u agent >/dev/null; [ $? -eq 1 ]; }',
    '( pgrep -u agent >/dev/null; [ $? -eq 1 ] )',
    'pgrep -u agent >/dev/null 2>&1; [ "$?" = 1 ]',
    'pgrep -u agent >/dev/null 2>&1; rc=$?; [ "$rc" -eq 1 ] || exit 2',
    'pgrep -u agent >/dev/null; case $? in 0) exit 1;; 1) exit 0;; *) exit 2;; esac',
    'pkill -u agent; sleep 1; pkill -9 -u agent; sleep 1; pgrep -u agent >/dev/null; [ $? -eq 1 ]',
    's=$(pgrep -u agent); rc=$?; [ "$rc" -eq 1 ] && [ -z "$s" ]',
    // Conflating: 0 also when pgrep failed (2).
    'if pgrep -u agent; then exit 1; fi; exit 0',
    'pgrep -u agent && exit 1 || exit 0',
    '! pgrep -u agent',
    'if pgrep -u agent; then ! pgrep -u agent; fi',
    'pkill -9 -u agent; sleep 1; ! pgrep -u agent >/dev/null 2>&1',
    's=$(pgrep -u agent); [ -z "$s" ]',
    'pgrep -u agent >/dev/null; [ $? -ne 0 ]',
    'n=$(pgrep -u agent | wc -l); [ "$n" -eq 0 ]',
    // ps exits 1 both for "none" and for failing: no status of it is proof.
    'ps -u agent >/dev/null; [ $? -eq 1 ]',
    // Masked.
    'pgrep -u agent; sleep 1',
    'set -e; pkill -u agent || true; sleep 1; pgrep -u agent >/dev/null && exit 1; exit 0',
  ];
  return [...benchflow, ...nearMisses, ...cases.map((text) => ({ text, origin: 'hand-written' as const }))];
}

/**
 * Texts on the edge of the grammar, for the comparison with `dash -n` only (never run): some dash
 * accepts, some it rejects; the test does not say which, dash does.
 */
export const parseEdgeCases: readonly string[] = [
  '{ { true; } >/dev/null }',
  '{ true; } 2>/dev/null }',
  '{ true; } { true; }',
  '{ echo }',
  // After a compound command's redirection dash reads `}`, `fi` or `done` as a plain word (esac it takes).
  'if :; then { :; } >/dev/null fi',
  'while false; do { :; } 2>&1 done',
  '{ ( : ) >/dev/null }',
  '{ if :; then :; fi 2>&1 }',
  '{ f() { :; } >/dev/null }',
  'case x in x) { :; } >/dev/null esac',
  '{ : >/dev/null }',
  '{ { :; } }',
  'if :; then ( : ) fi',
  'x=1 { true; }',
  '{ }',
  '( )',
  'f() { }',
  'if true; then fi',
  'while true; do done',
  'if true; then :; fi fi',
  '(true) (true)',
  '{ true; } &&',
  'true && && true',
  'true |',
  'true; ;',
  ';;',
  'then true',
  'fi',
  '! ! true',
  '! true | ! true',
  'echo a >',
  "echo 'a",
  'echo "a',
  'echo $(true',
  'echo `true',
  'echo $((1)',
  'case x in esac',
  'case x in x) esac',
  'case $? in 0|1) ;; (2) ;; esac',
  'x=$(case a in a) echo;; esac)',
  'echo $( ( true ) )',
  'for x in; do :; done',
  'for x do :; done',
  'f() ( : ) >/dev/null',
  'f() { :; } >/dev/null 2>&1',
  'f() if true; then :; fi',
  '{ :; } 2>/dev/null | { :; }',
  'if :; then :; fi >/dev/null <&-',
  '! { true; } 2>/dev/null',
  'for sig in TERM KILL; do :; done >/dev/null',
  'until false; do break; done 2>&1',
  'echo ${x:-y} ${x#*/} $((1+2))',
  'local x=1',
  ': <<EOF\npkill -u agent\nEOF',
  'true & wait',
  'echo } {',
  'time true',
];

// The grammar's leaves. Kills and observations are those hardening commands use; each is one simple
// command (or a pipeline, where marked) so that `!`, `&&` and `||` bind to it as written.
const kills = [
  'pkill -u agent',
  'pkill -9 -u agent',
  'pkill -KILL -u agent 2>/dev/null',
  'pkill -TERM -u agent',
  'kill -9 $pid',
  'kill -s KILL $pid',
  'killall -u agent',
];
const observations = [
  'pgrep -u agent',
  'pgrep -u agent >/dev/null 2>&1',
  'pgrep -u agent > /dev/null',
  'pgrep -u agent 2>/dev/null',
  'pgrep -U 1001',
  's=$(pgrep -u agent)',
  'pid=$(pgrep -u agent)',
  'ps -u agent',
  'ps -u agent >/dev/null',
];
const pipelines = [
  'pgrep -u agent | wc -l',
  'ps -u agent | wc -l',
  'pgrep -u agent | wc -l >/dev/null',
  'n=$(pgrep -u agent | wc -l)',
];
const statusTests = [
  '[ $? -eq 1 ]',
  '[ "$?" = 1 ]',
  'test $? -ne 0',
  '[ $? -eq 0 ]',
  '[ $? -ne 1 ]',
  '[ "$?" -eq 2 ]',
  'rc=$?',
  '[ "$rc" -eq 1 ]',
  '[ "$rc" -ne 0 ]',
];
const valueTests = ['[ -z "$s" ]', '[ -n "$s" ]', '[ -z "$pid" ]', 'test -n "$s"', '[ "$n" -eq 0 ]'];
const plain = [
  'sleep 1',
  'true',
  'false',
  ':',
  'exit 0',
  'exit 1',
  'exit 2',
  'exit',
  'exit $?',
  'exit "$rc"',
  'echo done',
];
const redirections = [' 2>/dev/null', ' >/dev/null 2>&1', ' >/dev/null'];
const separators = ['; ', ' ; ', ' && ', ' || ', '\n', ' &&\n', ' ||\n'];
const functionNames = ['f', 'g', 'h'];

interface Context {
  /** How many more levels of compound commands may open here. */
  readonly depth: number;
  /** `break` is allowed: directly inside a loop body, not in a subshell or a function defined there. */
  readonly inLoop: boolean;
  /** `continue` is allowed: inside a `for` body only, as a `while` body's counter is incremented last. */
  readonly mayContinue: boolean;
  /** `return` is allowed: inside a function body, not in a subshell there. */
  readonly inFunction: boolean;
  /** Functions that may be called here. A body calls only functions defined before it, so none recurses. */
  readonly callable: readonly string[];
}

class Grammar {
  /** Loop counters are unique per command, so no body or called function can reset an enclosing loop's. */
  private loops = 0;

  constructor(private readonly random: SeededRandom) {}

  command(): string {
    this.loops = 0;
    let prologue = '';
    if (this.chance(0.08)) prologue += this.pick(['set -e; ', 'set -e\n']);
    // Functions first, so that calls come after their definitions, as in BenchFlow's command.
    const defined: string[] = [];
    const definitions = this.chance(0.2) ? 1 + this.random.below(2) : 0;
    for (let index = 0; index < definitions; index++) {
      const name = functionNames[index]!;
      prologue += this.functionDefinition(name, defined) + this.pick(['\n', '; ']);
      defined.push(name);
    }
    // Small, as hardening commands are (and every stub call is a process: the corpus must run in minutes).
    return (
      prologue + this.list({ depth: 2, inLoop: false, mayContinue: false, inFunction: false, callable: defined }, 3)
    );
  }

  private functionDefinition(name: string, callable: readonly string[]): string {
    const body = this.list({ depth: 1, inLoop: false, mayContinue: false, inFunction: true, callable }, 2);
    switch (this.random.below(5)) {
      case 0:
        return `${name}() {\n${body}\n}`;
      case 1:
        return `${name}() ( ${body} )`;
      case 2:
        return `${name}() { ${body}; }${this.pick(redirections)}`;
      default:
        return `${name}() { ${body}; }`;
    }
  }

  /** One item usually, more now and then: each stub call costs a process start, so lists stay short. */
  private list(context: Context, maximumItems: number): string {
    let count = 1;
    while (count < maximumItems && this.chance(0.4)) count++;
    let text = this.item(context);
    for (let index = 1; index < count; index++) text += this.pick(separators) + this.item(context);
    return text;
  }

  private item(context: Context): string {
    // Compound commands mostly at the top, rarely nested in one another: small commands, deep enough.
    const compound = context.depth <= 0 ? 0 : context.depth >= 2 ? 1 : 0.3;
    const choices: [number, () => string][] = [
      [30, () => this.simple()],
      [22, () => this.idiom()],
      [6, () => `! ${this.negatable(context)}`],
      [
        4 * compound,
        () => `( ${this.list(this.inSubshell(context), 2)} )${this.maybe(0.3, () => this.pick(redirections))}`,
      ],
      [6 * compound, () => this.braceGroup(context)],
      [8 * compound, () => this.ifClause(context)],
      [5 * compound, () => this.caseClause(context)],
      [3 * compound, () => this.whileLoop(context, 'while')],
      [2 * compound, () => this.whileLoop(context, 'until')],
      [3 * compound, () => this.forLoop(context)],
      // A space after `$(`, or a body that opens with `(` would read as `$((`, arithmetic.
      [2 * compound, () => `s=$( ${this.list(this.inSubshell(context), 2)} )`],
      [context.callable.length > 0 ? 6 : 0, () => this.call(context)],
      [context.inLoop ? 3 : 0, () => 'break'],
      [context.mayContinue ? 2 : 0, () => 'continue'],
      [context.inFunction ? 4 : 0, () => this.pick(['return 0', 'return 1', 'return 2', 'return', 'return $?'])],
      [1, () => `# ${this.pick(['kill them all', 'then look'])}\n${this.simple()}`],
    ];
    return this.weighted(choices)();
  }

  private simple(): string {
    // Pipelines and substitutions are a process each (or two): common enough to be covered, no more.
    const group = this.weighted<readonly string[]>([
      [4, kills],
      [7, observations],
      [1, pipelines],
      [4, statusTests],
      [3, valueTests],
      [5, plain],
    ]);
    return this.pick(group);
  }

  /** Sequences hardening commands are made of, so that the interesting shapes are common. */
  private idiom(): string {
    const observation = this.pick([
      'pgrep -u agent',
      'pgrep -u agent >/dev/null',
      'pgrep -u agent >/dev/null 2>&1',
      'pgrep -U 1001 >/dev/null',
      'ps -u agent >/dev/null',
    ]);
    const none = this.pick([
      '[ $? -eq 1 ]',
      '[ "$?" = 1 ]',
      '[ $? = 1 ]',
      'test $? -eq 1',
      '[ $? -ne 0 ]',
      'test $? -ne 0',
      '[ $? -eq 0 ]',
      '[ $? -gt 0 ]',
    ]);
    // Weighted so that substitutions and pipelines (a process each) stay a minority.
    const idioms: [number, () => string][] = [
      [4, () => `${observation}; ${none}`],
      [
        3,
        () =>
          `${observation}; rc=$?; ${this.pick(['[ "$rc" -eq 1 ] || exit 2', '[ "$rc" -eq 1 ]', '[ $rc -eq 0 ] && exit 1', 'exit $rc', '[ "$rc" -ne 0 ] || exit 1'])}`,
      ],
      [
        3,
        () =>
          `${observation}; case ${this.pick(['$?', '"$?"'])} in ${this.pick(['0) exit 1;; 1) exit 0;; *) exit 2;;', '0) exit 1;; 1) ;; *) exit 2;;', '1) exit 0;; *) exit 1;;', '0) exit 1;; *) exit 0;;', '0) exit 1;; 2) exit 2;; *) exit 0;;', '1) true;; *) false;;'])} esac`,
      ],
      [2, () => `if ${observation}; then exit 1; fi; exit 0`],
      [2, () => `${observation} && exit 1 || exit 0`],
      [1, () => `s=$(pgrep -u agent)${this.pick(['', ' || [ $? -eq 1 ]', ' || exit 2'])}; ${this.pick(valueTests)}`],
      [1, () => 's=$(pgrep -u agent); rc=$?; [ "$rc" -eq 1 ] && [ -z "$s" ]'],
      [1, () => 'for pid in $(pgrep -u agent); do kill -9 $pid; done'],
      [2, () => `for sig in TERM KILL; do pkill -$sig -u agent${this.pick(['', ' 2>/dev/null'])}; sleep 1; done`],
      [0.5, () => 'n=$(pgrep -u agent | wc -l); [ "$n" -eq 0 ]'],
      [
        2,
        () =>
          `pkill -u agent${this.pick(['', ' 2>/dev/null'])}; sleep 1; pkill -9 -u agent${this.pick(['', ' 2>/dev/null'])}${this.pick(['', ' || true'])}`,
      ],
      [
        3,
        () =>
          `${this.pick(['!', ''])} ${observation} ${this.pick(['||', '&&'])} ${this.pick(['exit 1', 'exit 2', 'true', 'false', 'exit 0'])}`.trim(),
      ],
    ];
    return this.weighted(idioms)();
  }

  /** What may follow `!`: a pipeline. */
  private negatable(context: Context): string {
    if (context.depth > 0 && this.chance(0.2)) return this.braceGroup(context);
    if (context.depth > 0 && this.chance(0.1)) return `( ${this.list(this.inSubshell(context), 2)} )`;
    if (context.depth > 0 && this.chance(0.1)) return this.ifClause(context);
    if (context.callable.length > 0 && this.chance(0.15)) return this.pick(context.callable);
    return this.pick([...observations, ...observations, ...pipelines, ...kills, ...valueTests, 'true', 'false']);
  }

  private braceGroup(context: Context): string {
    const body = this.list(this.deeper(context), 2);
    const group = this.chance(0.2) ? `{\n${body}\n}` : `{ ${body}; }`;
    return group + this.maybe(0.5, () => this.pick(redirections));
  }

  private ifClause(context: Context): string {
    const inner = this.deeper(context);
    const condition = () =>
      this.chance(0.6)
        ? this.pick([...observations, ...pipelines, ...valueTests, ...statusTests])
        : this.list(inner, 2);
    const end = () => this.pick(['; ', '\n']);
    let text = `if ${condition()}${end()}then ${this.list(inner, 2)}${end()}`;
    if (this.chance(0.2)) text += `elif ${condition()}${end()}then ${this.list(inner, 2)}${end()}`;
    if (this.chance(0.35)) text += `else ${this.list(inner, 2)}${end()}`;
    return `${text}fi${this.maybe(0.15, () => this.pick(redirections))}`;
  }

  private caseClause(context: Context): string {
    const inner = this.deeper(context);
    const subject = this.pick(['$?', '"$?"', '$rc', '"$rc"', '"$s"']);
    const patterns = this.pick([
      ['0', '1', '*'],
      ['0', '1', '2', '*'],
      ['1', '*'],
      ['0', '*'],
      ['0|2', '1'],
      ["''", '*'],
      ['0', '1|2'],
    ]);
    const multiline = this.chance(0.3);
    const branches = patterns.map((pattern, index) => {
      const body = this.chance(0.15) ? '' : this.list(inner, 2);
      const last = index === patterns.length - 1;
      // The last branch may leave out `;;`; then a newline must end its list, or `esac` would be an argument.
      const close = last && this.chance(0.3) ? '' : ';;';
      return multiline ? `    ${pattern}) ${body}\n    ${close}` : `${pattern}) ${body}${close || '\n'}`;
    });
    return multiline
      ? `case ${subject} in\n${branches.join('\n')}\nesac`
      : `case ${subject} in ${branches.join(' ')} esac`;
  }

  /** A loop bounded by its own counter, which nothing else assigns; `continue` is not allowed in it. */
  private whileLoop(context: Context, keyword: 'while' | 'until'): string {
    const counter = this.counter();
    const bound = 2 + this.random.below(2);
    const inner = { ...this.deeper(context), inLoop: true, mayContinue: false };
    const observe = this.pick(['', ' pgrep -u agent >/dev/null']);
    const condition =
      keyword === 'while'
        ? `[ $${counter} -lt ${bound} ]${observe ? ` &&${observe}` : ''}`
        : observe
          ? `!${observe} || [ $${counter} -ge ${bound} ]`
          : `[ $${counter} -ge ${bound} ]`;
    return `${counter}=0; ${keyword} ${condition}; do ${this.list(inner, 2)}; ${counter}=$((${counter}+1)); done`;
  }

  private forLoop(context: Context): string {
    const inner = { ...this.deeper(context), inLoop: true, mayContinue: true };
    const header = this.pick(['sig in TERM KILL', 'pid in $s', 'pid in $(pgrep -u agent)', 'attempt in 1 2']);
    const body =
      header.startsWith('sig') && this.chance(0.5)
        ? `pkill -$sig -u agent; ${this.list(inner, 2)}`
        : this.list(inner, 2);
    return `for ${header}; do ${body}; done${this.maybe(0.1, () => this.pick(redirections))}`;
  }

  private call(context: Context): string {
    const name = this.pick(context.callable);
    return this.pick([
      name,
      name,
      `${name} || exit 2`,
      `s=$(${name})`,
      `${name} >/dev/null 2>&1`,
      `${name}; [ $? -eq 1 ]`,
    ]);
  }

  private counter(): string {
    const name = ['i', 'j', 'k'][this.loops] ?? `i${this.loops}`;
    this.loops++;
    return name;
  }

  private deeper(context: Context): Context {
    return { ...context, depth: context.depth - 1 };
  }

  /** A subshell or substitution: `break`, `continue` and `return` there are left out, their effects differ by shell. */
  private inSubshell(context: Context): Context {
    return { ...context, depth: context.depth - 1, inLoop: false, mayContinue: false, inFunction: false };
  }

  private pick<T>(items: readonly T[]): T {
    return items[this.random.below(items.length)]!;
  }

  private chance(probability: number): boolean {
    return this.random.fraction() < probability;
  }

  private maybe(probability: number, text: () => string): string {
    return this.chance(probability) ? text() : '';
  }

  private weighted<T>(choices: readonly [number, T][]): T {
    const total = choices.reduce((sum, [weight]) => sum + weight, 0);
    let point = this.random.fraction() * total;
    for (const [weight, value] of choices) {
      point -= weight;
      if (weight > 0 && point < 0) return value;
    }
    return choices.filter(([weight]) => weight > 0).at(-1)![1];
  }
}

/** `count` distinct commands from the grammar, the same ones for the same seed. */
export function generateCommands(
  random: SeededRandom,
  count: number,
  exclude: ReadonlySet<string> = new Set(),
): string[] {
  const grammar = new Grammar(random);
  const commands = new Set<string>();
  for (let attempt = 0; commands.size < count; attempt++) {
    if (attempt > count * 20)
      throw new Error(`the grammar gave only ${commands.size} distinct commands in ${attempt} attempts`);
    const command = grammar.command();
    if (!exclude.has(command)) commands.add(command);
  }
  return [...commands];
}

/** Edits that break (or, now and then, happen not to break) a command's syntax. */
const mutations: readonly ((text: string, random: SeededRandom) => string | undefined)[] = [
  (text) => dropLast(text, /\bfi\b/g),
  (text) => dropLast(text, /\bdone\b/g),
  (text) => dropLast(text, /\besac\b/g),
  (text) => dropLast(text, /\}/g),
  (text) => dropLast(text, /\)/g),
  (text) => dropLast(text, /\bthen\b/g),
  (text) => dropLast(text, /\bdo\b/g),
  (text) => dropLast(text, /\bin\b/g),
  (text) => dropLast(text, /;;/g),
  (text) => `${text} &&`,
  (text) => `${text} ||`,
  (text) => `${text} |`,
  (text) => `${text} >`,
  (text) => `${text} 2>`,
  (text) => `&& ${text}`,
  (text) => `; ${text}`,
  (text) => `${text} && && true`,
  (text, random) => insertAtSpace(text, "'", random),
  (text, random) => insertAtSpace(text, '"', random),
  (text, random) => insertAtSpace(text, '$(', random),
  (text, random) => insertAtSpace(text, '`', random),
  (text) => `then ${text}`,
  (text) => `${text}; then exit 1; fi`,
  (text) => `${text}; else exit 1; fi`,
  (text) => `${text}; done`,
  (text) => `${text}; { }`,
  (text) => `${text}; ( )`,
  (text) => `${text}; f() { }`,
  (text) => `if ${text}; then fi`,
  (text) => `while ${text}; do done`,
  (text) => `${text} ;;`,
  (text) => `${text}; esac`,
  (text) => `case $? in 0) ${text};; esac esac`,
  (text) => `${text}; ! ! true`,
  (text) => `${text} &`,
  (text) => `{ ${text} }`,
  (text) => `( ${text}`,
  (text) => text.replace(/; \}/, ' }'),
];

/** Up to `count` distinct mutations of the given commands. */
export function invalidMutations(random: SeededRandom, sources: readonly string[], count: number): string[] {
  const mutated = new Set<string>();
  const originals = new Set(sources);
  for (let attempt = 0; mutated.size < count && attempt < count * 20; attempt++) {
    const source = sources[random.below(sources.length)]!;
    const mutation = mutations[random.below(mutations.length)]!;
    const text = mutation(source, random);
    if (text !== undefined && text !== source && !originals.has(text)) mutated.add(text);
  }
  return [...mutated];
}

function dropLast(text: string, pattern: RegExp): string | undefined {
  const matches = [...text.matchAll(pattern)];
  const last = matches.at(-1);
  if (!last || last.index === undefined) return undefined;
  return text.slice(0, last.index) + text.slice(last.index + last[0].length);
}

function insertAtSpace(text: string, insertion: string, random: SeededRandom): string | undefined {
  const spaces = [...text.matchAll(/ /g)].map((match) => match.index ?? 0);
  if (spaces.length === 0) return undefined;
  const at = spaces[random.below(spaces.length)]! + 1;
  return text.slice(0, at) + insertion + text.slice(at);
}
