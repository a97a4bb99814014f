/**
 * The JSON Schema compatibility rules for object schemas (Confluent's ObjectSchemaDiff): required
 * names, properties added or removed under an open, closed or partially open content model
 * (additionalProperties / patternProperties), property and schema dependencies,
 * additionalProperties, min/maxProperties. Property and dependency names are visited in the order
 * of Java's HashMap/HashSet, as Confluent visits them.
 */
import { type Compare, type Difference, compareLimit, diff, isCompatible, under } from './json-schema-differences.js';
import { javaCopiedMapOrder, javaHashMapOrder, javaHashSetUnion } from './json-schema-java-order.js';
import { type ObjectNode, type SchemaNode, isEmptyClass } from './json-schema-nodes.js';

/** Confluent's ObjectSchemaDiff: required, properties (by content model), dependencies, additionalProperties, limits. */
export function compareObject(compare: Compare, original: ObjectNode, update: ObjectNode): Difference[] {
  const out: Difference[] = [];
  const originalKeys = javaHashMapOrder(original.properties.keys());
  const updateKeys = javaHashMapOrder(update.properties.keys());

  // required
  for (const key of originalKeys) {
    const updateSchema = update.properties.get(key);
    if (updateSchema === undefined) continue;
    const wasRequired = original.required.includes(key);
    const isRequired = update.required.includes(key);
    if (wasRequired && !isRequired) {
      out.push(diff('REQUIRED_ATTRIBUTE_REMOVED', 'required', key));
    } else if (!wasRequired && isRequired) {
      out.push(diff(updateSchema.hasDefault ? 'REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED' : 'REQUIRED_ATTRIBUTE_ADDED', 'required', key));
    }
  }

  // properties
  for (const key of javaHashSetUnion(originalKeys, updateKeys)) {
    const path = ['properties', key];
    const originalSchema = original.properties.get(key);
    const updateSchema = update.properties.get(key);
    if (updateSchema === undefined) {
      // Only the update's content model matters: a property can go if the reader is open.
      if (isOpenObject(update)) {
        out.push(diff('PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL', ...path));
        continue;
      }
      const partial = partialObjectSchema(update, key);
      if (partial !== undefined) {
        const sub = compare(originalSchema, partial);
        out.push(...under(path, sub));
        out.push(diff(isCompatible(sub)
          ? 'PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
          : 'PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL', ...path));
      } else {
        out.push(diff(originalSchema!.kind === 'false'
          ? 'PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL'
          : 'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL', ...path));
      }
    } else if (originalSchema === undefined) {
      // Only the original's content model matters: a property can come if the writer is closed.
      const required = update.required.includes(key);
      if (isOpenObject(original)) {
        if (isEmptyClass(updateSchema)) {
          out.push(diff('PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL', ...path));
        } else if (required) {
          out.push(diff(updateSchema.hasDefault
            ? 'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL'
            : 'REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL', ...path));
        } else {
          out.push(diff('OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL', ...path));
        }
        continue;
      }
      const partial = partialObjectSchema(original, key);
      if (partial !== undefined) {
        const sub = compare(partial, updateSchema);
        out.push(...under(path, sub));
        out.push(diff(isCompatible(sub)
          ? 'PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
          : 'PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL', ...path));
      }
      if (required) {
        out.push(diff(updateSchema.hasDefault
          ? 'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL'
          : 'REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL', ...path));
      } else {
        out.push(diff('OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL', ...path));
      }
    } else {
      out.push(...under(path, compare(originalSchema, updateSchema)));
    }
  }

  // dependencies
  const originalDeps = javaCopiedMapOrder(javaHashMapOrder(original.propertyDependencies.keys()));
  const updateDeps = javaCopiedMapOrder(javaHashMapOrder(update.propertyDependencies.keys()));
  for (const key of javaHashSetUnion(originalDeps, updateDeps)) {
    const before = original.propertyDependencies.get(key);
    const after = update.propertyDependencies.get(key);
    if (after === undefined) {
      out.push(diff('DEPENDENCY_ARRAY_REMOVED', 'dependencies', key));
    } else if (before === undefined) {
      out.push(diff('DEPENDENCY_ARRAY_ADDED', 'dependencies', key));
    } else {
      const beforeSet = new Set(before);
      const afterSet = new Set(after);
      const equal = beforeSet.size === afterSet.size && [...beforeSet].every((k) => afterSet.has(k));
      if (!equal) {
        if ([...beforeSet].every((k) => afterSet.has(k))) {
          out.push(diff('DEPENDENCY_ARRAY_EXTENDED', 'dependencies', key));
        } else if ([...afterSet].every((k) => beforeSet.has(k))) {
          out.push(diff('DEPENDENCY_ARRAY_NARROWED', 'dependencies', key));
        } else {
          out.push(diff('DEPENDENCY_ARRAY_CHANGED', 'dependencies', key));
        }
      }
    }
  }
  const originalSchemaDeps = javaCopiedMapOrder(javaHashMapOrder(original.schemaDependencies.keys()));
  const updateSchemaDeps = javaCopiedMapOrder(javaHashMapOrder(update.schemaDependencies.keys()));
  for (const key of javaHashSetUnion(originalSchemaDeps, updateSchemaDeps)) {
    const before = original.schemaDependencies.get(key);
    const after = update.schemaDependencies.get(key);
    if (after === undefined) {
      out.push(diff('DEPENDENCY_SCHEMA_REMOVED', 'dependencies', key));
    } else if (before === undefined) {
      out.push(diff('DEPENDENCY_SCHEMA_ADDED', 'dependencies', key));
    } else {
      out.push(...under(['dependencies', key], compare(before, after)));
    }
  }

  // additionalProperties
  if (original.additionalProperties !== update.additionalProperties) {
    out.push(diff(update.additionalProperties ? 'ADDITIONAL_PROPERTIES_ADDED' : 'ADDITIONAL_PROPERTIES_REMOVED', 'additionalProperties'));
  } else if (original.additionalPropertiesSchema === undefined && update.additionalPropertiesSchema !== undefined) {
    out.push(diff('ADDITIONAL_PROPERTIES_NARROWED', 'additionalProperties'));
  } else if (update.additionalPropertiesSchema === undefined && original.additionalPropertiesSchema !== undefined) {
    out.push(diff('ADDITIONAL_PROPERTIES_EXTENDED', 'additionalProperties'));
  } else {
    out.push(...under(['additionalProperties'], compare(original.additionalPropertiesSchema, update.additionalPropertiesSchema)));
  }

  compareLimit(out, 'maxProperties', original.maxProperties, update.maxProperties,
    'MAX_PROPERTIES_ADDED', 'MAX_PROPERTIES_REMOVED', 'MAX_PROPERTIES_INCREASED', 'MAX_PROPERTIES_DECREASED');
  compareLimit(out, 'minProperties', original.minProperties, update.minProperties,
    'MIN_PROPERTIES_ADDED', 'MIN_PROPERTIES_REMOVED', 'MIN_PROPERTIES_INCREASED', 'MIN_PROPERTIES_DECREASED');
  return out;
}

/** Additional properties allowed, with no schema for them and no pattern properties. */
function isOpenObject(node: ObjectNode): boolean {
  return node.patternProperties.length === 0 && node.additionalPropertiesSchema === undefined && node.additionalProperties;
}

/** The schema a partially open content model gives a property it does not declare. */
function partialObjectSchema(node: ObjectNode, key: string): SchemaNode | undefined {
  for (const [pattern, schema] of node.patternProperties) {
    if (regexFind(pattern, key)) return schema;
  }
  return node.additionalPropertiesSchema;
}

function regexFind(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    try {
      return new RegExp(pattern).test(text);
    } catch {
      return false;
    }
  }
}
