/**
 * ajv compiles each schema to a function, which is slow once (about a tenth of a second for all of them)
 * and fast for every record after. The build does it once, ahead of time: scripts/build.mjs writes
 * `standaloneValidatorsSource()` (ajv's standalone code for the same schemas and options) into the
 * bundles in place of validatorsByKind.ts, so a CLI run, a worker thread or the language server starts
 * with the validators compiled. `compileValidators()` is the same compilation at run time, for a tree
 * run without the build and for the test that holds the two equal.
 */
import Ajv2020, { type Options, type ValidateFunction } from 'ajv/dist/2020';
import standaloneCode from 'ajv/dist/standalone';
import { artifactKindNames, type ArtifactKind } from '../../../../shared/src/layout';
import { schemaByKind } from './catalog';

export type ValidatorsByKind = Readonly<Record<ArtifactKind, ValidateFunction>>;

// strictTypes would demand `type: object` beside every `required` in the per-record-type branches;
// those branches are only reached under the root's own `type: object`.
const options: Options = { allErrors: true, strict: true, strictTypes: false, allowUnionTypes: true };

export function compileValidators(): ValidatorsByKind {
  const ajv = new Ajv2020(options);
  return Object.fromEntries(artifactKindNames.map((kind) => [kind, ajv.compile(schemaByKind[kind])])) as Record<
    ArtifactKind,
    ValidateFunction
  >;
}

/** An ES module exporting `validatorsByKind`, as validatorsByKind.ts does, with each validator compiled. */
export function standaloneValidatorsSource(): string {
  const ajv = new Ajv2020({ ...options, code: { source: true, esm: true } });
  // Exported under names of their own (a kind's name is no identifier), then gathered by kind.
  const exportNames = new Map(artifactKindNames.map((kind, index) => [kind, `validator${index}`]));
  const refs: Record<string, string> = {};
  for (const kind of artifactKindNames) {
    // Compiled as compileValidators does, each found again by its $id.
    ajv.compile(schemaByKind[kind]);
    refs[exportNames.get(kind)!] = (schemaByKind[kind] as { readonly $id: string }).$id;
  }
  return `${standaloneCode(ajv, refs)}\nexport const validatorsByKind = {${artifactKindNames.map((kind) => `${JSON.stringify(kind)}: ${exportNames.get(kind)}`).join(', ')}};\n`;
}
