/**
 * ListGroups' filters for the groups of one type (Kafka's GroupMetadataManager.listGroups): the
 * types and states filters compare case-insensitively; an empty filter lets every group through.
 * Consumer, share and streams groups answer with their type as protocol type and group type.
 */
import type { ListedGroup } from '../../protocol/generated/messages/list-groups-response.js';

export function listGroupsOfType(groups: Iterable<{ groupId: string; state: string }>, type: 'consumer' | 'share' | 'streams', statesFilter: string[], typesFilter: string[]): ListedGroup[] {
  const states = new Set(statesFilter.map((s) => s.toLowerCase()));
  const types = new Set(typesFilter.map((s) => s.toLowerCase()));
  if (types.size > 0 && !types.has(type)) return [];
  const out: ListedGroup[] = [];
  for (const g of groups) {
    if (states.size > 0 && !states.has(g.state.toLowerCase())) continue;
    out.push({ groupId: g.groupId, protocolType: type, groupState: g.state, groupType: type });
  }
  return out;
}
