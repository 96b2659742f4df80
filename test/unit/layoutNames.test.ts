/**
 * The rollout layout has one home, shared/src/layout.ts: no other source file spells a rollout's file
 * name. The names checked are the layout module's own (every artifact pattern and the verifier's reward
 * files), so a file added to the layout is checked from then on.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { artifactKinds, verifierRewardFiles } from '../../shared/src/layout';
import { repoRoot } from '../support/repo';

const sourceFolders = ['server/src', 'client/src', 'shared/src'];
const layoutModule = 'shared/src/layout.ts';

/**
 * Exempt: the rule documentation in prose. codes.ts and the rules' contract.ts files hold each rule's
 * title and paragraph of documentation, which README's code table and the SARIF rules are made from, so
 * they read as prose for people ("result.json holds no reward") rather than as code that opens a file.
 */
function isExempt(path: string): boolean {
  return path === 'server/src/engine/codes.ts' || path.endsWith('/contract.ts');
}

/** The file names of the layout, derived from its own table. */
const layoutNames = [
  ...new Set([
    ...artifactKinds.flatMap((info) => info.patterns.map((glob) => glob.slice(glob.lastIndexOf('/') + 1))),
    ...Object.values(verifierRewardFiles),
  ]),
];

/** A name as a string spells it, or as a regular expression does (`result\.json`), not inside a longer name. */
const spelledName = new RegExp(
  `(?<![\\w-])(${layoutNames.map((name) => name.replace(/\./g, '(?:\\.|\\\\\\.)')).join('|')})(?![\\w-])`,
);

function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.isFile() && entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** What came before, when it is no word or punctuation. */
const startOfFile = '<start>';
const literal = '<literal>';

/**
 * The literals of the source (strings, template text and regular expressions), where code spells a file
 * name, with all else blanked: line breaks stay, so lines still count. Comments are prose for the reader
 * of the code, not names it uses; and blanking the code itself keeps `reward.json?.text` (a property of
 * a variable) from reading as a file name.
 */
function literalsOf(source: string): string {
  const out = source.split('').map((char): string => (char === '\n' ? char : ' '));
  const keep = (from: number, to: number): void => {
    for (let index = from; index < Math.min(to, source.length); index++) out[index] = source[index] ?? ' ';
  };
  // One entry per open template literal expression (`${ … }`): the depth of braces opened inside it.
  const templateBraces: number[] = [];
  let previous = startOfFile;
  let index = 0;
  const skipQuoted = (quote: string): void => {
    const start = index;
    index++;
    while (index < source.length && source[index] !== quote && source[index] !== '\n')
      index += source[index] === '\\' ? 2 : 1;
    index++;
    keep(start, index);
  };
  /** Scans template text from `index` to its end or to a `${`; true when an expression opens. */
  const skipTemplateText = (): boolean => {
    const start = index;
    try {
      return scanTemplateText();
    } finally {
      keep(start, index);
    }
  };
  const scanTemplateText = (): boolean => {
    while (index < source.length) {
      const char = source[index];
      if (char === '\\') index += 2;
      else if (char === '`') {
        index++;
        return false;
      } else if (char === '$' && source[index + 1] === '{') {
        index += 2;
        templateBraces.push(0);
        return true;
      } else index++;
    }
    return false;
  };
  while (index < source.length) {
    const char = source[index] ?? '';
    const next = source[index + 1];
    if (/\s/.test(char)) {
      index++;
      continue;
    }
    if (char === '/' && next === '/') {
      const end = source.indexOf('\n', index);
      index = end === -1 ? source.length : end;
      continue;
    }
    if (char === '/' && next === '*') {
      const end = source.indexOf('*/', index + 2);
      index = end === -1 ? source.length : end + 2;
      continue;
    }
    if (char === "'" || char === '"') {
      skipQuoted(char);
      previous = literal;
      continue;
    }
    if (char === '`') {
      index++;
      skipTemplateText();
      previous = literal;
      continue;
    }
    if (char === '/' && regexMayStartAfter(previous)) {
      const start = index;
      index++;
      let inClass = false;
      while (index < source.length && source[index] !== '\n') {
        const current = source[index];
        if (current === '\\') index++;
        else if (current === '[') inClass = true;
        else if (current === ']') inClass = false;
        else if (current === '/' && !inClass) break;
        index++;
      }
      index++;
      keep(start, index);
      previous = literal;
      continue;
    }
    if (char === '{' && templateBraces.length > 0) templateBraces.push((templateBraces.pop() ?? 0) + 1);
    if (char === '}' && templateBraces.length > 0) {
      const depth = templateBraces.pop() ?? 0;
      if (depth === 0) {
        index++;
        skipTemplateText();
        previous = literal;
        continue;
      }
      templateBraces.push(depth - 1);
    }
    const word = /^[\w$]+/.exec(source.slice(index, index + 64))?.[0];
    if (word) {
      previous = word;
      index += word.length;
    } else {
      previous = char;
      index++;
    }
  }
  return out.join('');
}

/** After a value (a name, a number, a literal, a closing bracket) a slash divides; elsewhere it opens a regular expression. */
function regexMayStartAfter(previous: string): boolean {
  if (previous === startOfFile) return true;
  if (previous === literal) return false;
  if (/^[\w$]+$/.test(previous))
    return [
      'return',
      'typeof',
      'case',
      'in',
      'of',
      'delete',
      'void',
      'throw',
      'new',
      'instanceof',
      'else',
      'do',
      'yield',
      'await',
    ].includes(previous);
  return previous !== ')' && previous !== ']' && previous !== '}';
}

/** `file:line: name` for each layout file name spelled in the code of a source file. */
function spelledNames(path: string, source: string): string[] {
  return literalsOf(source)
    .split('\n')
    .flatMap((line, index) => {
      const found = spelledName.exec(line)?.[1];
      return found ? [`${path}:${index + 1}: ${found}`] : [];
    });
}

describe('the rollout layout has one home', () => {
  it('checks every file name of the layout', () => {
    for (const name of [
      'result.json',
      'run_config.json',
      'acp_trajectory.jsonl',
      'action_records.jsonl',
      'reward.txt',
    ]) {
      assert.ok(layoutNames.includes(name), name);
    }
  });

  it('sees names in strings, templates and regular expressions, not in comments', () => {
    const source = [
      "const a = 'result.json';",
      '// result.json in a comment',
      'const b = `${root}/benchguard/action_records.jsonl`;',
      '/* timing.json',
      '   rewards.jsonl */ const c = /reward\\.txt$/;',
      'const d = x / 2 / 3; // config.json',
      "const e = { f: `${g ? 'metadata.json' : ''}` };",
      "const h = '// not a comment: run_config.json';",
      "const i = 'my_result.json' + 'reward.jsonl' + reward.json?.text;",
    ].join('\n');
    assert.deepEqual(spelledNames('example.ts', source), [
      'example.ts:1: result.json',
      'example.ts:3: action_records.jsonl',
      'example.ts:5: reward\\.txt',
      'example.ts:7: metadata.json',
      'example.ts:8: run_config.json',
    ]);
  });

  it('no source file outside the layout module spells a rollout file name', () => {
    const spelled = sourceFolders
      .flatMap((folder) => typeScriptFiles(join(repoRoot, folder)))
      .map((path) => relative(repoRoot, path).split(sep).join('/'))
      .filter((path) => path !== layoutModule && !isExempt(path))
      .flatMap((path) => spelledNames(path, readFileSync(join(repoRoot, path), 'utf8')));
    assert.deepEqual(
      spelled,
      [],
      `Take these names from ${layoutModule} (rolloutFiles, rolloutRoles, …):\n${spelled.join('\n')}`,
    );
  });
});
