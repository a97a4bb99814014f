/**
 * The JSON Schema compatibility rules for arrays, strings, numbers and enums (Confluent's
 * ArraySchemaDiff, StringSchemaDiff, NumberSchemaDiff, EnumSchemaDiff): items and tuple items under
 * an open, closed or partially open content model, additionalItems, min/maxItems, uniqueItems;
 * min/maxLength and pattern; the numeric limits and multipleOf (compared through its integer part,
 * as Confluent does); enum values extended, narrowed or changed.
 */
import { type Compare, type Difference, type DifferenceType, compareLimit, diff, isCompatible, under } from './json-schema-differences.js';
import { type ArrayNode, type EnumNode, type JavaNumber, type NumberNode, type StringNode, isEmptyClass } from './json-schema-nodes.js';

/** Confluent's ArraySchemaDiff: items, tuple items (by content model), additionalItems, limits, uniqueItems. */
export function compareArray(compare: Compare, original: ArrayNode, update: ArrayNode): Difference[] {
  const out: Difference[] = [];
  out.push(...under(['items'], compare(original.allItems, update.allItems)));

  const originalItems = original.tupleItems ?? [];
  const updateItems = update.tupleItems ?? [];
  const common = Math.min(originalItems.length, updateItems.length);
  for (let i = 0; i < common; i++) {
    out.push(...under([`items/${i}`], compare(originalItems[i], updateItems[i])));
  }
  for (let i = common; i < originalItems.length; i++) {
    const path = `items/${i}`;
    const originalSchema = originalItems[i]!;
    if (isOpenArray(update)) {
      out.push(diff('ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL', path));
    } else if (update.additionalItemsSchema !== undefined) {
      const sub = compare(originalSchema, update.additionalItemsSchema);
      out.push(...under([path], sub));
      out.push(diff(isCompatible(sub)
        ? 'ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
        : 'ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL', path));
    } else {
      out.push(diff(originalSchema.kind === 'false'
        ? 'ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL'
        : 'ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL', path));
    }
  }
  for (let i = common; i < updateItems.length; i++) {
    const path = `items/${i}`;
    const updateSchema = updateItems[i]!;
    if (isOpenArray(original)) {
      out.push(diff(isEmptyClass(updateSchema) ? 'ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL' : 'ITEM_ADDED_TO_OPEN_CONTENT_MODEL', path));
    } else if (original.additionalItemsSchema !== undefined) {
      const sub = compare(original.additionalItemsSchema, updateSchema);
      out.push(...under([path], sub));
      out.push(diff(isCompatible(sub)
        ? 'ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
        : 'ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL', path));
    } else {
      out.push(diff('ITEM_ADDED_TO_CLOSED_CONTENT_MODEL', path));
    }
  }

  if (original.additionalItems !== update.additionalItems) {
    out.push(diff(original.additionalItems ? 'ADDITIONAL_ITEMS_REMOVED' : 'ADDITIONAL_ITEMS_ADDED', 'additionalItems'));
  } else if (original.additionalItemsSchema === undefined && update.additionalItemsSchema !== undefined) {
    out.push(diff('ADDITIONAL_ITEMS_NARROWED', 'additionalItems'));
  } else if (update.additionalItemsSchema === undefined && original.additionalItemsSchema !== undefined) {
    out.push(diff('ADDITIONAL_ITEMS_EXTENDED', 'additionalItems'));
  } else {
    out.push(...under(['additionalItems'], compare(original.additionalItemsSchema, update.additionalItemsSchema)));
  }

  compareLimit(out, 'maxItems', original.maxItems, update.maxItems,
    'MAX_ITEMS_ADDED', 'MAX_ITEMS_REMOVED', 'MAX_ITEMS_INCREASED', 'MAX_ITEMS_DECREASED');
  compareLimit(out, 'minItems', original.minItems, update.minItems,
    'MIN_ITEMS_ADDED', 'MIN_ITEMS_REMOVED', 'MIN_ITEMS_INCREASED', 'MIN_ITEMS_DECREASED');
  if (original.uniqueItems !== update.uniqueItems) {
    out.push(diff(original.uniqueItems ? 'UNIQUE_ITEMS_REMOVED' : 'UNIQUE_ITEMS_ADDED', 'uniqueItems'));
  }
  return out;
}

export function compareString(original: StringNode, update: StringNode): Difference[] {
  const out: Difference[] = [];
  compareLimit(out, 'maxLength', original.maxLength, update.maxLength,
    'MAX_LENGTH_ADDED', 'MAX_LENGTH_REMOVED', 'MAX_LENGTH_INCREASED', 'MAX_LENGTH_DECREASED');
  compareLimit(out, 'minLength', original.minLength, update.minLength,
    'MIN_LENGTH_ADDED', 'MIN_LENGTH_REMOVED', 'MIN_LENGTH_INCREASED', 'MIN_LENGTH_DECREASED');
  if (original.pattern === undefined && update.pattern !== undefined) out.push(diff('PATTERN_ADDED', 'pattern'));
  else if (original.pattern !== undefined && update.pattern === undefined) out.push(diff('PATTERN_REMOVED', 'pattern'));
  else if (original.pattern !== update.pattern) out.push(diff('PATTERN_CHANGED', 'pattern'));
  return out;
}

/** Java's `Number.intValue()` of a JSON number (truncation toward zero, then 32 bits). */
function javaIntValue(n: JavaNumber): number {
  return Math.trunc(n.value) | 0;
}

export function compareNumber(original: NumberNode, update: NumberNode): Difference[] {
  const out: Difference[] = [];
  compareLimit(out, 'maximum', original.maximum, update.maximum,
    'MAXIMUM_ADDED', 'MAXIMUM_REMOVED', 'MAXIMUM_INCREASED', 'MAXIMUM_DECREASED');
  compareLimit(out, 'minimum', original.minimum, update.minimum,
    'MINIMUM_ADDED', 'MINIMUM_REMOVED', 'MINIMUM_INCREASED', 'MINIMUM_DECREASED');

  const beforeMax = original.exclusiveMaximum;
  const afterMax = update.exclusiveMaximum;
  if (beforeMax !== afterMax) {
    if (beforeMax === undefined) out.push(diff('EXCLUSIVE_MAXIMUM_ADDED', 'exclusiveMaximum'));
    else if (afterMax === undefined) out.push(diff('EXCLUSIVE_MAXIMUM_REMOVED', 'exclusiveMaximum'));
    else if (beforeMax < afterMax) out.push(diff('EXCLUSIVE_MAXIMUM_INCREASED', 'exclusiveMaximum'));
    // Confluent measures the decrease against the new `maximum` (and fails without one).
    else if (beforeMax > (update.maximum ?? afterMax)) out.push(diff('EXCLUSIVE_MAXIMUM_DECREASED', 'exclusiveMaximum'));
  }
  compareLimit(out, 'exclusiveMinimum', original.exclusiveMinimum, update.exclusiveMinimum,
    'EXCLUSIVE_MINIMUM_ADDED', 'EXCLUSIVE_MINIMUM_REMOVED', 'EXCLUSIVE_MINIMUM_INCREASED', 'EXCLUSIVE_MINIMUM_DECREASED');

  const before = original.multipleOf;
  const after = update.multipleOf;
  if (before?.text !== after?.text) {
    if (before === undefined) out.push(diff('MULTIPLE_OF_ADDED', 'multipleOf'));
    else if (after === undefined) out.push(diff('MULTIPLE_OF_REMOVED', 'multipleOf'));
    else out.push(diff(multipleOfChange(before, after), 'multipleOf'));
  }

  if (original.requiresInteger !== update.requiresInteger) {
    out.push(diff(original.requiresInteger ? 'TYPE_EXTENDED' : 'TYPE_NARROWED'));
  }
  return out;
}

function multipleOfChange(before: JavaNumber, after: JavaNumber): DifferenceType {
  const b = javaIntValue(before);
  const a = javaIntValue(after);
  if (b !== 0) {
    // Confluent divides the integer parts.
    if (a % b === 0) return 'MULTIPLE_OF_EXPANDED';
    if (a !== 0 && b % a === 0) return 'MULTIPLE_OF_REDUCED';
    if (a !== 0) return 'MULTIPLE_OF_CHANGED';
  }
  // A fractional multipleOf makes Confluent divide by zero; decide with the exact ratio instead.
  const isMultiple = (x: number, y: number): boolean => {
    const q = x / y;
    return Math.abs(q - Math.round(q)) < 1e-9;
  };
  if (isMultiple(after.value, before.value)) return 'MULTIPLE_OF_EXPANDED';
  if (isMultiple(before.value, after.value)) return 'MULTIPLE_OF_REDUCED';
  return 'MULTIPLE_OF_CHANGED';
}

export function compareEnum(original: EnumNode, update: EnumNode): Difference[] {
  const before = new Set(original.values);
  const after = new Set(update.values);
  const beforeInAfter = [...before].every((v) => after.has(v));
  const afterInBefore = [...after].every((v) => before.has(v));
  if (beforeInAfter && afterInBefore) return [];
  if (beforeInAfter) return [diff('ENUM_ARRAY_EXTENDED', 'enum')];
  if (afterInBefore) return [diff('ENUM_ARRAY_NARROWED', 'enum')];
  return [diff('ENUM_ARRAY_CHANGED', 'enum')];
}

function isOpenArray(node: ArrayNode): boolean {
  return node.additionalItems && node.additionalItemsSchema === undefined;
}
