/**
 * The validators the build compiles ahead of time (ajv's standalone code, bundled in place of
 * validatorsByKind.ts by scripts/build.mjs) against ajv compiling the same schemas at run time: the same
 * verdict and the same errors, in the same order, for every record of the fixture and example bundles and
 * for seeded mutations of each, so that no finding changes with where the compilation happened.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { ValidateFunction } from 'ajv';
import { artifactKindInfo, artifactKindNames } from '../../shared/src/layout';
import { ArtifactClassifier } from '../../server/src/engine/artifacts/classify';
import { compileValidators } from '../../server/src/engine/schema/compileValidators';
import { validatorsByKind } from '../../server/src/engine/schema/validatorsByKind';
import { loadCorpus } from '../fuzz/corpus';
import { mutate } from '../fuzz/mutations';
import { seededRandom } from '../support/random';

const mutationsPerFile = 20;

/** Every value a check would validate in `bytes`: each parsable JSONL line, or the whole JSON document. */
function recordsOf(bytes: Buffer, format: 'json' | 'jsonl'): unknown[] {
  const texts = format === 'jsonl' ? bytes.toString('utf8').split('\n') : [bytes.toString('utf8')];
  return texts.flatMap((text) => {
    try {
      return [JSON.parse(text) as unknown];
    } catch {
      return [];
    }
  });
}

describe('validators compiled at build time', () => {
  it('are in the bundle already compiled: ajv made none of them at run time', () => {
    for (const kind of artifactKindNames)
      assert.equal('schemaEnv' in validatorsByKind[kind], false, `${kind}'s validator was compiled at run time`);
  });

  it('give the verdict and the errors of the same schemas compiled at run time, on every fixture record and mutations of it', () => {
    const compiled = compileValidators();
    const classifier = new ArtifactClassifier();
    let records = 0;
    let invalid = 0;
    for (const bundle of loadCorpus()) {
      for (const [path, bytes] of bundle.files) {
        const kind = classifier.kindOf(path);
        if (!kind) continue;
        const format = artifactKindInfo(kind).format;
        const random = seededRandom(bytes.length);
        const inputs = [bytes];
        for (let index = 0; index < mutationsPerFile; index++)
          inputs.push(mutate(random, { kind, format, bytes }).bytes);
        const atBuild: ValidateFunction = validatorsByKind[kind];
        const atRun: ValidateFunction = compiled[kind];
        for (const record of inputs.flatMap((input) => recordsOf(input, format))) {
          const valid = atBuild(record);
          const sameErrors = valid === atRun(record) && isDeepStrictEqual(atBuild.errors, atRun.errors);
          // Described only on failure: a mutated record may nest deeper than JSON.stringify can go.
          if (!sameErrors)
            assert.fail(`${path}: ${String(valid)} ${JSON.stringify(atBuild.errors)} ${JSON.stringify(atRun.errors)}`);
          records++;
          if (!valid) invalid++;
        }
      }
    }
    assert.ok(records > 10_000 && invalid > 1_000, `${records} records, ${invalid} invalid`);
  });
});
