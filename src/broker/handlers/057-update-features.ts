/**
 * UpdateFeatures (key 57), versions 0-2: finalizes feature levels (`kafka-features.sh upgrade /
 * downgrade / disable`, Admin.updateFeatures). DescribeFeatures has no API of its own: the admin
 * client reads ApiVersions (018-api-versions.ts).
 *
 * Behavior (Kafka 4.4's ControllerApis + FeatureControlManager):
 * - Needs ALTER on the cluster, else CLUSTER_AUTHORIZATION_FAILED.
 * - The request is checked all or nothing (cluster/features.ts checkFeatureUpdates): a feature
 *   Samsa does not have, a level outside its supported range, a negative level, or a downgrade
 *   without a downgrade type (v0: AllowDowngrade false) answers INVALID_UPDATE_VERSION and
 *   nothing changes; level 0 removes the feature.
 * - ValidateOnly (v1+) checks without storing.
 * - The levels are stored in the metadata store (fenced by this broker's epoch) and the answer
 *   waits until this broker's metadata cache shows them.
 * Version notes: v0 has AllowDowngrade instead of UpgradeType (true = safe downgrade); v1 adds
 * ValidateOnly; v2 drops the per-feature results (v0-1: each feature NONE on success, an empty
 * list with the top-level error otherwise, as Kafka 4.4 answers).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { UpdateFeaturesRequest } from '../../protocol/generated/messages/update-features-request.js';
import type { UpdateFeaturesResponse } from '../../protocol/generated/messages/update-features-response.js';
import { AclOperation } from '../../protocol/acl.js';
import { authorizeCluster } from './auth-helper.js';
import { checkFeatureUpdates, UpgradeType } from '../../cluster/features.js';

/** v0-1 list every requested feature with NONE (message "NONE") on success, none on an error. */
function answer(req: UpdateFeaturesRequest, version: number, errorCode: number, errorMessage: string | null): UpdateFeaturesResponse {
  const ok = errorCode === ErrorCode.NONE;
  return {
    throttleTimeMs: 0, errorCode, errorMessage,
    results: version < 2 && ok ? req.featureUpdates.map((u) => ({ feature: u.feature, errorCode, errorMessage: 'NONE' })) : [],
  };
}

export const updateFeaturesHandler = defineHandler({
  apiKey: 57,
  async handle(ctx, req) {
    if (!authorizeCluster(ctx, AclOperation.ALTER)) return answer(req, ctx.apiVersion, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    const broker = ctx.broker;
    const updates = req.featureUpdates.map((u) => ({
      feature: u.feature,
      maxVersionLevel: u.maxVersionLevel,
      upgradeType: ctx.apiVersion === 0 ? (u.allowDowngrade ? UpgradeType.SAFE_DOWNGRADE : UpgradeType.UPGRADE) : u.upgradeType,
    }));
    const outcome = checkFeatureUpdates(broker.metadataCache.features, updates, broker.nodeId);
    if (outcome.errorCode !== ErrorCode.NONE) {
      return answer(req, ctx.apiVersion, outcome.errorCode, `The update failed for all features since the following feature had an error: ${outcome.errorMessage}`);
    }
    if (!(ctx.apiVersion >= 1 && req.validateOnly) && outcome.levels.size > 0) await broker.setFeatureLevels(outcome.levels);
    return answer(req, ctx.apiVersion, ErrorCode.NONE, null);
  },
  errorResponse(req, errorCode, ctx) {
    return answer(req, ctx.apiVersion, errorCode, null);
  },
});
