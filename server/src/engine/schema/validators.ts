/**
 * One compiled ajv validator per artifact kind. ajv compiles a schema to a function, which is slow once
 * and fast for every record after, so all schemas are compiled together when the registry is made (at
 * server or CLI start-up) and then shared.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import { artifactKindNames, type ArtifactKind } from '../../../../shared/src/layout';
import { schemaByKind } from './catalog';

export type RecordValidator = (record: unknown) => readonly ErrorObject[];

export class SchemaRegistry {
  private readonly validators = new Map<ArtifactKind, ValidateFunction>();

  constructor() {
    // strictTypes would demand `type: object` beside every `required` in the per-record-type branches;
    // those branches are only reached under the root's own `type: object`.
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, allowUnionTypes: true });
    for (const kind of artifactKindNames) {
      this.validators.set(kind, ajv.compile(schemaByKind[kind]));
    }
  }

  validatorFor(kind: ArtifactKind): RecordValidator {
    const validate = this.validators.get(kind)!;
    return (record) => (validate(record) ? noErrors : (validate.errors ?? noErrors));
  }
}

const noErrors: readonly ErrorObject[] = [];
