/**
 * The JSON Schema compatibility rules for combined schemas (Confluent's CombinedSchemaDiff and
 * NotSchemaDiff): allOf/anyOf/oneOf criteria changed or extended, subschemas added or removed
 * (product/sum types), the subschemas paired by a maximum-cardinality matching of those that stay
 * compatible; `not` compared in reverse.
 */
import { type Compare, type Difference, type DifferenceType, diff, isCompatible, under } from './json-schema-differences.js';
import type { CombinedNode, NotNode, SchemaNode } from './json-schema-nodes.js';

/** Confluent's NotSchemaDiff. */
export function compareNot(compare: Compare, original: NotNode, update: NotNode): Difference[] {
  // The wrapped schemas are compared in reverse: `not A` may become `not B` when A reads B.
  const sub = compare(update.not, original.not);
  return [diff(isCompatible(sub) ? 'NOT_TYPE_NARROWED' : 'NOT_TYPE_EXTENDED', 'not')];
}

/** Confluent's CombinedSchemaDiff: the criterion, the number of subschemas, then a maximum matching of them. */
export function compareCombined(compare: Compare, original: CombinedNode, update: CombinedNode): Difference[] {
  const out: Difference[] = [];
  const type = compareCriteria(original, update);
  if (type !== undefined) out.push(diff(type));
  if (type === 'COMBINED_TYPE_CHANGED') return out;

  const originals = distinct(original.subschemas);
  const updates = distinct(update.subschemas);
  if (originals.length < updates.length) {
    out.push(diff(update.criterion === 'allOf' ? 'PRODUCT_TYPE_EXTENDED' : 'SUM_TYPE_EXTENDED'));
  } else if (originals.length > updates.length) {
    out.push(diff(update.criterion === 'allOf' ? 'PRODUCT_TYPE_NARROWED' : 'SUM_TYPE_NARROWED'));
  }
  // Which original subschema each update subschema can stand for, then a maximum matching.
  const edges = originals.map((o, i) =>
    updates.map((u) => {
      const sub = compare(o, u);
      return isCompatible(sub) ? under([`${original.criterion}/${i}`], sub) : undefined;
    }),
  );
  const matching = maximumMatching(edges.map((row) => row.map((e) => e !== undefined)), updates.length);
  matching.forEach((j, i) => {
    if (j !== undefined) out.push(...edges[i]![j]!);
  });
  const matched = matching.filter((j) => j !== undefined).length;
  if (matched < Math.min(originals.length, updates.length)) out.push(diff('COMBINED_TYPE_SUBSCHEMAS_CHANGED'));
  return out;
}

function compareCriteria(original: CombinedNode, update: CombinedNode): DifferenceType | undefined {
  if (original.criterion === update.criterion) return undefined;
  if (update.criterion === 'anyOf') return 'COMBINED_TYPE_EXTENDED'; // allOf/oneOf to anyOf
  if (update.criterion === 'oneOf') {
    return original.subschemas.length === 1 ? 'COMBINED_TYPE_EXTENDED' : 'COMBINED_TYPE_CHANGED';
  }
  return original.subschemas.length === 1 && update.subschemas.length === 1
    ? 'COMBINED_TYPE_EXTENDED'
    : 'COMBINED_TYPE_CHANGED';
}

function distinct(nodes: readonly SchemaNode[]): SchemaNode[] {
  const seen = new Set<string>();
  return nodes.filter((n) => {
    if (seen.has(n.key)) return false;
    seen.add(n.key);
    return true;
  });
}

/**
 * A maximum-cardinality matching of a bipartite graph (augmenting paths): for each left vertex,
 * the right vertex it is matched with, or undefined.
 */
function maximumMatching(adjacent: boolean[][], rightCount: number): Array<number | undefined> {
  const matchOfRight: Array<number | undefined> = new Array(rightCount).fill(undefined);
  const tryAugment = (left: number, visited: boolean[]): boolean => {
    for (let right = 0; right < rightCount; right++) {
      if (!adjacent[left]![right] || visited[right]) continue;
      visited[right] = true;
      const other = matchOfRight[right];
      if (other === undefined || tryAugment(other, visited)) {
        matchOfRight[right] = left;
        return true;
      }
    }
    return false;
  };
  for (let left = 0; left < adjacent.length; left++) tryAugment(left, new Array(rightCount).fill(false));
  const matchOfLeft: Array<number | undefined> = new Array(adjacent.length).fill(undefined);
  matchOfRight.forEach((left, right) => {
    if (left !== undefined) matchOfLeft[left] = right;
  });
  return matchOfLeft;
}
