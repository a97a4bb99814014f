/**
 * Where protocol-specs/ deliberately differs from the upstream schema it transcribes, and why.
 * transcribe.ts applies these; the drift test (test/protocol/spec-drift.test.ts) applies them to
 * the upstream side before comparing.
 */

/**
 * Codec ranges wider than upstream: Kafka 4 dropped Produce v0-2 from its schema (KIP-896), but
 * Samsa still advertises them (librdkafka < 2.11 only compresses when the Produce range holds v0)
 * and answers them UNSUPPORTED_VERSION (protocol-specs/apis.json `refuse`), which needs the request
 * decoded to name its partitions. The fields keep their upstream versions (TransactionalId 3+, ...).
 */
export const WIDER_VALID_VERSIONS: Record<string, string> = {
  ProduceRequest: '0-13',
  ProduceResponse: '0-13',
};

export function applyOverrides(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  const wider = WIDER_VALID_VERSIONS[name];
  return wider === undefined ? spec : { ...spec, validVersions: wider };
}
