/**
 * One schema format of the Schema Registry (Confluent's `SchemaProvider`): AVRO, JSON or PROTOBUF.
 * A provider parses a schema's text (with the schemas it references, already resolved), gives the
 * text the registry stores and answers with, and checks one direction of compatibility between two
 * parsed schemas. The registry (src/schema-registry/registry.ts) owns subjects, versions, ids,
 * transitive checks and the answers' JSON; a provider knows only its format.
 *
 * The providers are loaded with a dynamic import() the first time a schema of their type is seen
 * (their libraries, avsc, protobufjs and ajv, are not loaded by a broker that never registers one).
 */

export type SchemaType = 'AVRO' | 'JSON' | 'PROTOBUF';

/** A reference as registered: the name the referring schema uses, and which version of which subject. */
export interface SchemaReference {
  name: string;
  subject: string;
  version: number;
}

/**
 * A referenced schema with its text, resolved by the registry (recursively: its own references are
 * resolved too). `name` is the reference's name as the referring schema imports it (a Protobuf
 * import path, a JSON Schema `$ref` URL, an Avro full type name).
 */
export interface ResolvedReference {
  name: string;
  schema: string;
  references: readonly ResolvedReference[];
}

export interface ParsedSchema {
  readonly schemaType: SchemaType;
  /**
   * The text the registry stores and returns (Confluent's `canonicalString()`): two registrations
   * whose canonical texts are equal are the same schema (same id, and "already registered").
   */
  readonly canonical: string;
  /** The references it was parsed with. */
  readonly references: readonly ResolvedReference[];
  /** Confluent's normalized form (`?normalize=true`): equal for schemas that differ only in form. */
  normalize(): ParsedSchema;
}

/** Compatibility in one direction; the registry composes FULL and the *_TRANSITIVE levels. */
export type CompatibilityDirection = 'BACKWARD' | 'FORWARD';

export interface SchemaProvider {
  readonly schemaType: SchemaType;
  /**
   * Parses `schema`; throws InvalidSchemaError with a message a user can act on when it is not a
   * valid schema of this type (the registry answers 422, error_code 42201, with that message).
   */
  parse(schema: string, references: readonly ResolvedReference[]): ParsedSchema;
  /**
   * The incompatibilities found when `proposed` is checked against `existing` in `direction`:
   * BACKWARD = data written with `existing` can be read with `proposed`; FORWARD = data written
   * with `proposed` can be read with `existing`. Empty means compatible. Each entry is one
   * message in Confluent's form, e.g.
   * `{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'b' at path '/fields/1' in the new schema has no default value and is missing in the old schema', additionalInfo:'b'}`.
   */
  checkCompatibility(direction: CompatibilityDirection, proposed: ParsedSchema, existing: ParsedSchema): string[];
}

/** A schema text that is not a valid schema of its type. */
export class InvalidSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidSchemaError';
  }
}
