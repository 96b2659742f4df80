/**
 * One compiled ajv validator per artifact kind, shared by every check: compiled when the tree is built
 * (validatorsByKind.ts), so the registry only hands them out.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { ArtifactKind } from '../../../../shared/src/layout';
import { validatorsByKind } from './validatorsByKind';

export type RecordValidator = (record: unknown) => readonly ErrorObject[];

export class SchemaRegistry {
  constructor(private readonly validators: Readonly<Record<ArtifactKind, ValidateFunction>> = validatorsByKind) {}

  validatorFor(kind: ArtifactKind): RecordValidator {
    const validate = this.validators[kind];
    return (record) => (validate(record) ? noErrors : (validate.errors ?? noErrors));
  }
}

const noErrors: readonly ErrorObject[] = [];
