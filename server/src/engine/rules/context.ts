/**
 * What every rule works with: the rollout's model, the options, and ways to place a finding exactly — on a
 * key or value inside a JSONL record or a JSON artifact, with related evidence in other files.
 */
import { codeInfo, type DiagnosticCode, type Effect } from '../codes';
import type { RolloutBundle } from '../bundle/rollout';
import type { DocumentFacts, RecordRef } from '../facts/facts';
import type { Severity } from '../codeContract';
import { rangeOnLine, type BundleFinding, type RelatedEvidence, type TextRange } from '../findings';
import { locate, parseTreeSafely, type JsonPath, type SyntaxNode } from '../parse/jsonTree';
import { LineIndex } from '../text/lineLayout';
import type { RolloutModel } from '../model/rolloutModel';

export interface RuleOptions {
  /** As the validator's --allow-oracle-without-llm: an oracle rollout needs no LLM trajectory. */
  readonly allowOracleWithoutLlm: boolean;
  /** As the validator's --allow-native-subscription-without-llm. */
  readonly allowNativeSubscriptionWithoutLlm: boolean;
  /**
   * The bundle is a fixture (in a folder the user marks as fixtures, or written by New Fixture Bundle):
   * records authored by a quick fix or the scaffold count there, so fixtures exercise every rule. The
   * server and the CLI decide it; the engine reads no settings.
   */
  readonly fixtureBundle: boolean;
}

export const defaultRuleOptions: RuleOptions = {
  allowOracleWithoutLlm: false,
  allowNativeSubscriptionWithoutLlm: false,
  fixtureBundle: false,
};

/** Related places linked from one finding; a finding about 10,000 tool calls links the first few. */
const maxRelated = 20;

/** Where a finding goes: a file and a range in it. */
export interface Place {
  readonly file: string;
  readonly range: TextRange;
}

export class RuleContext {
  readonly findings: BundleFinding[] = [];
  private readonly lineIndexes = new Map<string, LineIndex>();
  private readonly trees = new Map<string, SyntaxNode | undefined>();
  /** By record text, then by the offset of the string literal in it. */
  private readonly stringOffsets = new Map<string, Map<number, StringOffsets>>();

  /** The model's bundle: what most rules read directly. */
  readonly bundle: RolloutBundle;

  constructor(
    /** What the model read once for this evaluation: the rules judge it and read nothing of it again. */
    readonly model: RolloutModel,
    readonly options: RuleOptions,
  ) {
    this.bundle = model.bundle;
  }

  report(
    code: DiagnosticCode,
    place: Place,
    message: string,
    extra: {
      related?: readonly RelatedEvidence[];
      severity?: Severity;
      effect?: Effect;
      /** The reading of damaged evidence it holds under, when it does not hold as written (model/actions.ts `readingNote`, model/rowReadings.ts `RowReadings.note`). */
      holdsWhen?: string | undefined;
    } = {},
  ): BundleFinding {
    const related = extra.related ?? [];
    const said = extra.holdsWhen ? `${message} (This holds when ${extra.holdsWhen}.)` : message;
    const finding: BundleFinding = {
      code,
      severity: extra.severity ?? codeInfo(code).severity,
      message:
        related.length > maxRelated
          ? `${said} (The first ${maxRelated} of ${related.length} related places are linked.)`
          : said,
      file: place.file,
      source: 'rules',
      range: place.range,
      ...(related.length > 0 ? { related: related.slice(0, maxRelated) } : {}),
      ...(extra.effect ? { effect: extra.effect } : {}),
      ...(extra.holdsWhen ? { underReading: true as const } : {}),
    };
    this.findings.push(finding);
    return finding;
  }

  /** A JSONL record, or the key or value at `path` inside it. */
  inRecord(file: string, ref: RecordRef, path: JsonPath = [], part: 'value' | 'key' = 'value'): Place {
    if (path.length === 0 || ref.text === undefined) return { file, range: rangeOnLine(ref.line, 0, ref.length) };
    const { offset, length } = locate(ref.text, this.treeOf(ref.text), path, part);
    return { file, range: rangeOnLine(ref.line, offset, offset + length) };
  }

  /** A span of characters inside the string value at `path` of a record, mapped through its escapes. */
  inStringValue(file: string, ref: RecordRef, path: JsonPath, span: { start: number; end: number }): Place {
    const text = ref.text;
    if (text === undefined) return this.inRecord(file, ref);
    const value = locate(text, this.treeOf(text), path);
    if (text[value.offset] !== '"') return this.inRecord(file, ref, path);
    const offsets = this.stringOffsetsOf(text, value.offset, value.length);
    return {
      file,
      range: rangeOnLine(
        ref.line,
        value.offset + offsets.rawOffset(span.start),
        value.offset + offsets.rawOffset(span.end),
      ),
    };
  }

  /** Read once per string value: a command of 12,000 masking commands places as many findings in it. */
  private stringOffsetsOf(text: string, offset: number, length: number): StringOffsets {
    let inText = this.stringOffsets.get(text);
    if (!inText) {
      inText = new Map();
      this.stringOffsets.set(text, inText);
    }
    let offsets = inText.get(offset);
    if (!offsets) {
      offsets = new StringOffsets(text.slice(offset, offset + length));
      inText.set(offset, offsets);
    }
    return offsets;
  }

  /** A JSON artifact, or the key or value at `path` inside it. */
  inDocument(
    file: string,
    document: DocumentFacts | undefined,
    path: JsonPath = [],
    part: 'value' | 'key' = 'value',
  ): Place {
    return document ? this.inJsonText(file, document.text, path, part) : this.atStart(file);
  }

  /** The start of a file: for findings about the file as a whole. */
  atStart(file: string): Place {
    return { file, range: rangeOnLine(0, 0, 0) };
  }

  /** Where a finding about the whole rollout goes: result.json, else another file of the bundle. */
  rolloutPlace(): Place {
    const result = this.bundle.file('result');
    if (result) return this.inDocument(result.path, this.bundle.facts('result', 'result'));
    const first = this.bundle.file('config') ?? this.bundle.file('trajectory') ?? this.bundle.files[0];
    return this.atStart(first?.path ?? this.bundle.pathOf('result'));
  }

  /** The key or value at `path` in a file of JSON text, or its start. */
  inJsonText(file: string, text: string, path: JsonPath = [], part: 'value' | 'key' = 'value'): Place {
    let index = this.lineIndexes.get(file);
    if (!index) {
      index = new LineIndex(text);
      this.lineIndexes.set(file, index);
    }
    if (path.length === 0) return { file, range: index.rangeAt(0, 0) };
    const { offset, length } = locate(text, this.treeOf(text), path, part);
    return { file, range: index.rangeAt(offset, length) };
  }

  /** Parsed once per text: a rule may place a finding on each of 5,000 ids listed in one record. */
  private treeOf(text: string): SyntaxNode | undefined {
    if (!this.trees.has(text)) this.trees.set(text, parseTreeSafely(text));
    return this.trees.get(text);
  }

  related(place: Place, message: string): RelatedEvidence {
    return { file: place.file, range: place.range, message };
  }
}

/**
 * Offsets in a JSON string literal (quotes included) of the characters of its decoded value: escapes such
 * as \" and \u0026 take more than one character in the text. The literal is read once, for its escapes;
 * each offset is then a binary search, not a walk from the literal's start.
 */
class StringOffsets {
  /** Decoded index of each escape, in order, and how many more raw characters the escapes up to it take. */
  private readonly decodedAt: number[] = [];
  private readonly extraAfter: number[] = [];
  /** The raw offset of the closing quote, the furthest a decoded index can map to. */
  private readonly end: number;

  constructor(literal: string) {
    let extra = 0;
    let decoded = 0;
    let raw = 1;
    const last = literal.length - 1;
    while (raw < last) {
      if (literal[raw] !== '\\') {
        raw++;
      } else {
        // A surrogate pair is two \u escapes for two UTF-16 units, so one decoded unit per escape holds.
        const width = literal[raw + 1] === 'u' ? 6 : 2;
        extra += width - 1;
        this.decodedAt.push(decoded);
        this.extraAfter.push(extra);
        raw += width;
      }
      decoded++;
    }
    this.end = Math.max(1, last);
  }

  /** The raw offset of the decoded character at `index`. */
  rawOffset(index: number): number {
    // The escapes before `index`: those at a decoded index below it.
    let low = 0;
    let high = this.decodedAt.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.decodedAt[middle]! < index) low = middle + 1;
      else high = middle;
    }
    const extra = low === 0 ? 0 : this.extraAfter[low - 1]!;
    return Math.min(1 + index + extra, this.end);
  }
}
