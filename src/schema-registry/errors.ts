/**
 * The registry's errors as Confluent's REST API answers them: an HTTP status and a body
 * `{"error_code": N, "message": "..."}` (the error codes and message texts of Confluent's
 * io.confluent.kafka.schemaregistry.rest.exceptions.Errors).
 */
export class SchemaRegistryError extends Error {
  constructor(readonly status: number, readonly errorCode: number, message: string) {
    super(message);
    this.name = 'SchemaRegistryError';
  }
}

export const Errors = {
  subjectNotFound: (s: string) => new SchemaRegistryError(404, 40401, `Subject '${s}' not found.`),
  versionNotFound: (v: number) => new SchemaRegistryError(404, 40402, `Version ${v} not found.`),
  schemaNotFound: (id?: number) => new SchemaRegistryError(404, 40403, id === undefined ? 'Schema not found' : `Schema ${id} not found`),
  subjectSoftDeleted: (s: string) => new SchemaRegistryError(404, 40404, `Subject '${s}' was soft deleted.Set permanent=true to delete permanently`),
  subjectNotSoftDeleted: (s: string) => new SchemaRegistryError(404, 40405, `Subject '${s}' was not deleted first before being permanently deleted`),
  versionSoftDeleted: (s: string, v: number) => new SchemaRegistryError(404, 40406, `Subject '${s}' Version ${v} was soft deleted.Set permanent=true to delete permanently`),
  versionNotSoftDeleted: (s: string, v: number) => new SchemaRegistryError(404, 40407, `Subject '${s}' Version ${v} was not deleted first before being permanently deleted`),
  subjectCompatibilityNotConfigured: (s: string) => new SchemaRegistryError(404, 40408, `Subject '${s}' does not have subject-level compatibility configured`),
  subjectModeNotConfigured: (s: string) => new SchemaRegistryError(404, 40409, `Subject '${s}' does not have subject-level mode configured`),
  incompatible: (message: string) => new SchemaRegistryError(409, 409, message),
  invalidSchema: (message: string) => new SchemaRegistryError(422, 42201, message),
  invalidVersion: (v: string) => new SchemaRegistryError(422, 42202, `The specified version '${v}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`),
  invalidCompatibility: () => new SchemaRegistryError(422, 42203, 'Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive'),
  invalidMode: () => new SchemaRegistryError(422, 42204, 'Invalid mode. Valid values are READWRITE, READONLY, and IMPORT.'),
  notPermitted: (message: string) => new SchemaRegistryError(422, 42205, message),
  referenceExists: (message: string) => new SchemaRegistryError(422, 42206, message),
  idMismatch: (message: string) => new SchemaRegistryError(422, 42207, message),
  store: (message: string) => new SchemaRegistryError(500, 50001, message),
  timeout: (message: string) => new SchemaRegistryError(500, 50002, message),
  forwarding: (message: string) => new SchemaRegistryError(500, 50003, message),
  unknownLeader: (message: string) => new SchemaRegistryError(500, 50004, message),
  /** Not Confluent's: the request body is not the JSON an endpoint takes (Confluent's Jackson answers 422/50005 variously). */
  badBody: (message: string) => new SchemaRegistryError(422, 422, message),
};
