/**
 * ApiVersions (key 18), versions 0-5.
 *
 * Behavior:
 * - Lists every API Samsa has a handler for, with the range from protocol-specs/apis.json.
 * - v5 (KIP-1242): a request naming both the cluster id and the node id it means to reach is
 *   answered REBOOTSTRAP_REQUIRED with an empty API list when either is not this broker's (a
 *   client with metadata.recovery.strategy=rebootstrap then bootstraps again); naming only one of
 *   them (cluster id null or node id -1, the defaults) is INVALID_REQUEST, as Kafka 4.4 answers.
 *   The software name check comes first.
 * - A version above 5 never reaches here: dispatch answers it in v0 form with
 *   UNSUPPORTED_VERSION and ApiVersions' own range, so clients can retry (KIP-511).
 * - v3+: the features Samsa supports (cluster/features.ts) and the cluster's finalized levels
 *   with the metadata revision they were read at as FinalizedFeaturesEpoch (Kafka: the metadata
 *   offset). A v3 request gets no supported feature whose minimum is 0 (KAFKA-17011: such
 *   clients refuse a 0 minimum; v4 fixed it), so v3 sees none of Samsa's.
 * - v3+: a client software name or version that does not match Kafka's pattern (letters,
 *   digits, '.', '-'; starting and ending with a letter or digit) is answered INVALID_REQUEST
 *   with an empty API list, as Kafka's ApiVersionsRequest.isValid decides.
 * Version notes: v1+ adds throttle time; v3+ is flexible and carries the client's software
 * name/version (KIP-511); the response header is always v0.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { SUPPORTED_FEATURES } from '../../cluster/features.js';
import type { RequestContext } from '../request-context.js';

function apiVersions(errorCode: number, apiKeys: { apiKey: number; minVersion: number; maxVersion: number }[]) {
  return { errorCode, apiKeys, throttleTimeMs: 0, supportedFeatures: [] as { name: string; minVersion: number; maxVersion: number }[], finalizedFeaturesEpoch: -1n, finalizedFeatures: [] as { name: string; maxVersionLevel: number; minVersionLevel: number }[], zkMigrationReady: false };
}

function withFeatures(ctx: RequestContext, r: ReturnType<typeof apiVersions>): ReturnType<typeof apiVersions> {
  const cache = ctx.broker.metadataCache;
  r.supportedFeatures = [...SUPPORTED_FEATURES]
    .filter(([, range]) => ctx.apiVersion >= 4 || range.minVersion > 0)
    .map(([name, range]) => ({ name, minVersion: range.minVersion, maxVersion: range.maxVersion }));
  r.finalizedFeaturesEpoch = BigInt(cache.revision);
  r.finalizedFeatures = [...cache.features].map(([name, level]) => ({ name, maxVersionLevel: level, minVersionLevel: level }));
  return r;
}

/** KIP-1242: whether the client reached the cluster and node it named (both or neither named). */
function targetCheck(ctx: RequestContext, clusterId: string | null, nodeId: number): number {
  if ((clusterId === null) !== (nodeId === -1)) return ErrorCode.INVALID_REQUEST;
  if (clusterId === null) return ErrorCode.NONE;
  return clusterId === ctx.broker.metadataCache.clusterId && nodeId === ctx.broker.nodeId ? ErrorCode.NONE : ErrorCode.REBOOTSTRAP_REQUIRED;
}

const SOFTWARE_NAME_OR_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

export const apiVersionsHandler = defineHandler({
  apiKey: 18,
  handle(ctx, req) {
    if (ctx.apiVersion >= 3 && !(SOFTWARE_NAME_OR_VERSION.test(req.clientSoftwareName) && SOFTWARE_NAME_OR_VERSION.test(req.clientSoftwareVersion))) {
      return apiVersions(ErrorCode.INVALID_REQUEST, []);
    }
    if (ctx.apiVersion >= 5) {
      const check = targetCheck(ctx, req.clusterId, req.nodeId);
      if (check !== ErrorCode.NONE) return apiVersions(check, []);
    }
    return withFeatures(ctx, apiVersions(ErrorCode.NONE, ctx.broker.dispatcher.advertised()));
  },
  // Kafka's ApiVersionsRequest.getErrorResponse: UNSUPPORTED_VERSION lists ApiVersions' own range
  // (KIP-511, so the client can retry), any other error no APIs.
  errorResponse(_req, errorCode, ctx) {
    return apiVersions(errorCode, errorCode === ErrorCode.UNSUPPORTED_VERSION ? ctx.broker.dispatcher.advertised().filter((a) => a.apiKey === 18) : []);
  },
});
