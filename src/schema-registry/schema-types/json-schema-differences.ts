/**
 * The differences the JSON Schema compatibility rules report (Confluent's json.diff Difference and
 * SchemaDiff.COMPATIBLE_CHANGES): their types, which of them are compatible, the message Confluent
 * words for each (`formatDifference`), and the small helpers every rule family (json-schema-diff-*.ts)
 * builds its list with (`diff`, `under`, `compareLimit`, and the `Compare` callback that recurses
 * into subschemas).
 */
import type { SchemaNode } from './json-schema-nodes.js';

export type DifferenceType =
  | 'SCHEMA_ADDED' | 'SCHEMA_REMOVED' | 'TYPE_EXTENDED' | 'TYPE_NARROWED' | 'TYPE_CHANGED'
  | 'MAX_LENGTH_ADDED' | 'MAX_LENGTH_REMOVED' | 'MAX_LENGTH_INCREASED' | 'MAX_LENGTH_DECREASED'
  | 'MIN_LENGTH_ADDED' | 'MIN_LENGTH_REMOVED' | 'MIN_LENGTH_INCREASED' | 'MIN_LENGTH_DECREASED'
  | 'PATTERN_ADDED' | 'PATTERN_REMOVED' | 'PATTERN_CHANGED'
  | 'MAXIMUM_ADDED' | 'MAXIMUM_REMOVED' | 'MAXIMUM_INCREASED' | 'MAXIMUM_DECREASED'
  | 'MINIMUM_ADDED' | 'MINIMUM_REMOVED' | 'MINIMUM_INCREASED' | 'MINIMUM_DECREASED'
  | 'EXCLUSIVE_MAXIMUM_ADDED' | 'EXCLUSIVE_MAXIMUM_REMOVED' | 'EXCLUSIVE_MAXIMUM_INCREASED'
  | 'EXCLUSIVE_MAXIMUM_DECREASED' | 'EXCLUSIVE_MINIMUM_ADDED' | 'EXCLUSIVE_MINIMUM_REMOVED'
  | 'EXCLUSIVE_MINIMUM_INCREASED' | 'EXCLUSIVE_MINIMUM_DECREASED'
  | 'MULTIPLE_OF_ADDED' | 'MULTIPLE_OF_REMOVED' | 'MULTIPLE_OF_EXPANDED' | 'MULTIPLE_OF_REDUCED'
  | 'MULTIPLE_OF_CHANGED'
  | 'REQUIRED_ATTRIBUTE_ADDED' | 'REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED' | 'REQUIRED_ATTRIBUTE_REMOVED'
  | 'MAX_PROPERTIES_ADDED' | 'MAX_PROPERTIES_REMOVED' | 'MAX_PROPERTIES_INCREASED'
  | 'MAX_PROPERTIES_DECREASED' | 'MIN_PROPERTIES_ADDED' | 'MIN_PROPERTIES_REMOVED'
  | 'MIN_PROPERTIES_INCREASED' | 'MIN_PROPERTIES_DECREASED'
  | 'ADDITIONAL_PROPERTIES_ADDED' | 'ADDITIONAL_PROPERTIES_REMOVED'
  | 'ADDITIONAL_PROPERTIES_EXTENDED' | 'ADDITIONAL_PROPERTIES_NARROWED'
  | 'DEPENDENCY_ARRAY_ADDED' | 'DEPENDENCY_ARRAY_REMOVED' | 'DEPENDENCY_ARRAY_EXTENDED'
  | 'DEPENDENCY_ARRAY_NARROWED' | 'DEPENDENCY_ARRAY_CHANGED' | 'DEPENDENCY_SCHEMA_ADDED'
  | 'DEPENDENCY_SCHEMA_REMOVED'
  | 'REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL'
  | 'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL'
  | 'OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL'
  | 'PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL'
  | 'REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL'
  | 'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL'
  | 'OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL'
  | 'PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL'
  | 'PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL'
  | 'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL'
  | 'PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'MAX_ITEMS_ADDED' | 'MAX_ITEMS_REMOVED' | 'MAX_ITEMS_INCREASED' | 'MAX_ITEMS_DECREASED'
  | 'MIN_ITEMS_ADDED' | 'MIN_ITEMS_REMOVED' | 'MIN_ITEMS_INCREASED' | 'MIN_ITEMS_DECREASED'
  | 'UNIQUE_ITEMS_ADDED' | 'UNIQUE_ITEMS_REMOVED'
  | 'ADDITIONAL_ITEMS_ADDED' | 'ADDITIONAL_ITEMS_REMOVED' | 'ADDITIONAL_ITEMS_EXTENDED'
  | 'ADDITIONAL_ITEMS_NARROWED'
  | 'ITEM_ADDED_TO_OPEN_CONTENT_MODEL' | 'ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL'
  | 'ITEM_ADDED_TO_CLOSED_CONTENT_MODEL' | 'ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL'
  | 'ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL' | 'ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL'
  | 'ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'ENUM_ARRAY_EXTENDED' | 'ENUM_ARRAY_NARROWED' | 'ENUM_ARRAY_CHANGED'
  | 'COMBINED_TYPE_EXTENDED' | 'COMBINED_TYPE_CHANGED' | 'PRODUCT_TYPE_EXTENDED'
  | 'PRODUCT_TYPE_NARROWED' | 'SUM_TYPE_EXTENDED' | 'SUM_TYPE_NARROWED'
  | 'COMBINED_TYPE_SUBSCHEMAS_CHANGED' | 'NOT_TYPE_EXTENDED' | 'NOT_TYPE_NARROWED';

/** One difference; `path` is relative to the pair being compared (joined as `#/a/b`). */
export interface Difference {
  readonly type: DifferenceType;
  readonly path: readonly string[];
}

/** The changes Confluent's SchemaDiff.COMPATIBLE_CHANGES lists (of those this module reports). */
export const COMPATIBLE_CHANGES: ReadonlySet<DifferenceType> = new Set<DifferenceType>([
  'SCHEMA_REMOVED', 'TYPE_EXTENDED',
  'MAX_LENGTH_INCREASED', 'MAX_LENGTH_REMOVED', 'MIN_LENGTH_DECREASED', 'MIN_LENGTH_REMOVED',
  'PATTERN_REMOVED',
  'MAXIMUM_INCREASED', 'MAXIMUM_REMOVED', 'MINIMUM_DECREASED', 'MINIMUM_REMOVED',
  'EXCLUSIVE_MAXIMUM_INCREASED', 'EXCLUSIVE_MAXIMUM_REMOVED', 'EXCLUSIVE_MINIMUM_DECREASED',
  'EXCLUSIVE_MINIMUM_REMOVED', 'MULTIPLE_OF_REDUCED', 'MULTIPLE_OF_REMOVED',
  'REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED', 'REQUIRED_ATTRIBUTE_REMOVED',
  'DEPENDENCY_ARRAY_NARROWED', 'DEPENDENCY_ARRAY_REMOVED', 'DEPENDENCY_SCHEMA_REMOVED',
  'MAX_PROPERTIES_INCREASED', 'MAX_PROPERTIES_REMOVED', 'MIN_PROPERTIES_DECREASED',
  'MIN_PROPERTIES_REMOVED', 'ADDITIONAL_PROPERTIES_ADDED', 'ADDITIONAL_PROPERTIES_EXTENDED',
  'PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL',
  'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL',
  'OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL',
  'PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL',
  'PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL',
  'PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL',
  'PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL',
  'MAX_ITEMS_INCREASED', 'MAX_ITEMS_REMOVED', 'MIN_ITEMS_DECREASED', 'MIN_ITEMS_REMOVED',
  'UNIQUE_ITEMS_REMOVED', 'ADDITIONAL_ITEMS_ADDED', 'ADDITIONAL_ITEMS_EXTENDED',
  'ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL', 'ITEM_ADDED_TO_CLOSED_CONTENT_MODEL',
  'ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL', 'ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL',
  'ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL',
  'ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL',
  'ENUM_ARRAY_EXTENDED',
  'COMBINED_TYPE_EXTENDED', 'PRODUCT_TYPE_NARROWED', 'SUM_TYPE_EXTENDED', 'NOT_TYPE_NARROWED',
]);

export function isCompatible(differences: readonly Difference[]): boolean {
  return differences.every((d) => COMPATIBLE_CHANGES.has(d.type));
}

export function pathString(path: readonly string[]): string {
  return '#/' + path.join('/');
}

// The groups Confluent's Difference.error() picks its sentence by.
const KEYWORD_ADDED_OR_REMOVED = new Set<DifferenceType>([
  'MAXIMUM_ADDED', 'MINIMUM_ADDED', 'EXCLUSIVE_MAXIMUM_ADDED', 'EXCLUSIVE_MINIMUM_ADDED',
  'MULTIPLE_OF_ADDED', 'MAX_LENGTH_ADDED', 'MIN_LENGTH_ADDED', 'PATTERN_ADDED',
  'REQUIRED_ATTRIBUTE_ADDED', 'MAX_PROPERTIES_ADDED', 'MIN_PROPERTIES_ADDED',
  'DEPENDENCY_ARRAY_ADDED', 'DEPENDENCY_SCHEMA_ADDED', 'MAX_ITEMS_ADDED', 'MIN_ITEMS_ADDED',
  'UNIQUE_ITEMS_ADDED', 'ADDITIONAL_ITEMS_REMOVED', 'ADDITIONAL_PROPERTIES_REMOVED',
]);
const VALUE_INCREASED = new Set<DifferenceType>([
  'MIN_LENGTH_INCREASED', 'MINIMUM_INCREASED', 'EXCLUSIVE_MINIMUM_INCREASED',
  'MIN_PROPERTIES_INCREASED', 'MULTIPLE_OF_EXPANDED', 'MIN_ITEMS_INCREASED',
]);
const VALUE_DECREASED = new Set<DifferenceType>([
  'MAX_LENGTH_DECREASED', 'MAXIMUM_DECREASED', 'MAX_ITEMS_DECREASED',
  'EXCLUSIVE_MAXIMUM_DECREASED', 'MAX_PROPERTIES_DECREASED',
]);
const TYPE_NARROWED_GROUP = new Set<DifferenceType>([
  'ADDITIONAL_ITEMS_NARROWED', 'ENUM_ARRAY_NARROWED', 'SUM_TYPE_NARROWED',
  'ADDITIONAL_PROPERTIES_NARROWED',
]);
const VALUE_CHANGED = new Set<DifferenceType>([
  'PATTERN_CHANGED', 'MULTIPLE_OF_CHANGED', 'DEPENDENCY_ARRAY_CHANGED',
]);
const TYPE_CHANGED_GROUP = new Set<DifferenceType>([
  'TYPE_CHANGED', 'TYPE_NARROWED', 'COMBINED_TYPE_CHANGED', 'COMBINED_TYPE_SUBSCHEMAS_CHANGED',
  'ENUM_ARRAY_CHANGED',
]);
const TYPE_EXTENDED_GROUP = new Set<DifferenceType>([
  'DEPENDENCY_ARRAY_EXTENDED', 'PRODUCT_TYPE_EXTENDED', 'SUM_TYPE_EXTENDED', 'NOT_TYPE_EXTENDED',
]);
const ADDED_TO_OPEN = new Set<DifferenceType>([
  'REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL',
  'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL',
  'OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL', 'ITEM_ADDED_TO_OPEN_CONTENT_MODEL',
]);

/** The description of a difference, with Confluent's two `%s` placeholders (first, second). */
function describe(type: DifferenceType, p: string, first: string, second: string): string {
  if (KEYWORD_ADDED_OR_REMOVED.has(type)) {
    return `The keyword at path '${p}' in the ${first} schema is not present in the ${second} schema`;
  }
  if (VALUE_INCREASED.has(type)) {
    return `The value at path '${p}' in the ${first} schema is more than its value in the ${second} schema`;
  }
  if (VALUE_DECREASED.has(type)) {
    return `The value at path '${p}' in the ${first} schema is less than its value in the ${second} schema`;
  }
  if (VALUE_CHANGED.has(type)) {
    return `The value at path '${p}' is different between the ${first} and ${second} schema`;
  }
  if (TYPE_NARROWED_GROUP.has(type)) {
    return `An array or combined type at path '${p}' has fewer elements in the ${first} schema than the ${second} schema`;
  }
  if (TYPE_EXTENDED_GROUP.has(type)) {
    return `An array or combined type at path '${p}' has more elements in the ${first} schema than the ${second} schema`;
  }
  if (TYPE_CHANGED_GROUP.has(type)) {
    return `A type at path '${p}' is different between the ${first} schema and the ${second} schema`;
  }
  if (ADDED_TO_OPEN.has(type)) {
    return `The ${first} schema has an open content model and has a property or item at path '${p}' which is missing in the ${second} schema`;
  }
  switch (type) {
    case 'REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL':
      return `The ${first} schema has an unopen content model and has a required property at path '${p}' which is missing in the ${second} schema`;
    case 'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL':
    case 'ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL':
      return `The ${first} schema has a closed content model and is missing a property or item present at path '${p}' in the ${second} schema`;
    case 'PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL':
    case 'ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL':
      return `A property or item is missing in the ${first} schema but present at path '${p}' in the ${second} schema and is not covered by its partially open content model`;
    case 'PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL':
    case 'ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL':
      return `The ${first} schema has a property or item at path '${p}' which is missing in the ${second} schema and is not covered by its partially open content model`;
    default:
      return '';
  }
}

/**
 * Confluent's message for one difference: `Difference.toString()` formatted with (first, second),
 * i.e. ("new", "old") for a BACKWARD check and ("old", "new") for a FORWARD one.
 */
export function formatDifference(d: Difference, first: string, second: string): string {
  return `{errorType:"${d.type}", description:"${describe(d.type, pathString(d.path), first, second)}"}`;
}

// ---------------------------------------------------------------------------------------------
// Helpers of the per-keyword rules
// ---------------------------------------------------------------------------------------------

/** Compares two (sub)schemas, memoized and cycle-safe: the comparer the rules recurse with. */
export type Compare = (original: SchemaNode | undefined, update: SchemaNode | undefined) => Difference[];

export function diff(type: DifferenceType, ...path: string[]): Difference {
  return { type, path };
}

export function under(prefix: readonly string[], differences: readonly Difference[]): Difference[] {
  return differences.map((d) => ({ type: d.type, path: [...prefix, ...d.path] }));
}

/** Added / removed / increased / decreased, for a keyword holding a number (or absent). */
export function compareLimit(
  out: Difference[], keyword: string, before: number | undefined, after: number | undefined,
  added: DifferenceType, removed: DifferenceType, increased: DifferenceType, decreased: DifferenceType,
): void {
  if (before === after) return;
  if (before === undefined) out.push(diff(added, keyword));
  else if (after === undefined) out.push(diff(removed, keyword));
  else if (before < after) out.push(diff(increased, keyword));
  else if (before > after) out.push(diff(decreased, keyword));
}
