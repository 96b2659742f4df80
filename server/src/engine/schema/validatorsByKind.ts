/**
 * The compiled validator of each artifact kind's schema. This is the unbuilt form, which compiles them
 * when loaded; the bundles hold ajv's standalone code for the same schemas and options in its place
 * (scripts/build.mjs, from compileValidators.ts), so that no run pays for the compilation.
 */
import { compileValidators, type ValidatorsByKind } from './compileValidators';

export const validatorsByKind: ValidatorsByKind = compileValidators();
