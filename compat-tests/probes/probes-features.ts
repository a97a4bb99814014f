/**
 * Probes: UpdateFeatures (57). Only requests that leave both clusters as they were run here
 * (validate-only, refusals, levels already finalized on both): the other probes depend on
 * transaction.version and group.version staying what each broker finalized.
 */
import type { Probe } from './runner.js';

type Update = { feature: string; maxVersionLevel: number; upgradeType?: number; allowDowngrade?: boolean };

function uf(id: string, version: number, about: string, updates: Update[], validateOnly = false): Probe {
  return {
    id: `update-features/${id}`,
    api: 57,
    version,
    about,
    body: { timeoutMs: 60000, validateOnly, featureUpdates: updates.map((u) => ({ allowDowngrade: false, upgradeType: 1, ...u })) },
  };
}

export function featureProbes(): Probe[] {
  return [
    uf('v0-min-same-level', 0, 'group.version to the level both finalized (1): NONE, a result per feature', [{ feature: 'group.version', maxVersionLevel: 1 }]),
    uf('v1-validate-only', 1, 'validate-only upgrade of transaction.version to 2', [{ feature: 'transaction.version', maxVersionLevel: 2 }], true),
    uf('v2-max-validate-only', 2, 'the same at v2: no per-feature results', [{ feature: 'transaction.version', maxVersionLevel: 2 }], true),
    uf('v2-unknown-feature', 2, 'a feature neither broker has: INVALID_UPDATE_VERSION', [{ feature: 'no.such.feature', maxVersionLevel: 1 }], true),
    uf('v1-unknown-feature', 1, 'the same at v1, with the per-feature result', [{ feature: 'no.such.feature', maxVersionLevel: 1 }], true),
    uf('v2-above-range', 2, 'transaction.version 3, above the supported 0-2: INVALID_UPDATE_VERSION', [{ feature: 'transaction.version', maxVersionLevel: 3 }], true),
    uf('v2-negative-level', 2, 'a negative level', [{ feature: 'group.version', maxVersionLevel: -1, upgradeType: 2 }], true),
    uf('v2-downgrade-as-upgrade', 2, 'group.version 1 → 0 with upgrade type UPGRADE: INVALID_UPDATE_VERSION', [{ feature: 'group.version', maxVersionLevel: 0 }], true),
    uf('v0-downgrade-not-allowed', 0, 'v0: group.version 1 → 0 without AllowDowngrade', [{ feature: 'group.version', maxVersionLevel: 0 }]),
    uf('v2-unknown-upgrade-type', 2, 'upgrade type 4', [{ feature: 'group.version', maxVersionLevel: 1, upgradeType: 4 }], true),
    uf('v2-empty', 2, 'no updates', [], true),
    uf('v2-safe-downgrade-validate', 2, 'validate-only safe downgrade of group.version to 0', [{ feature: 'group.version', maxVersionLevel: 0, upgradeType: 2 }], true),
  ];
}
