/**
 * The schema model the JSON Schema compatibility rules compare (json-schema-diff.ts): one node kind
 * per Schema class of the everit library Confluent uses, as json-schema-model.ts builds them from a
 * document. Types only, and `isEmptyClass`.
 */

interface NodeBase {
  /** A `default` was given (everit is run with useDefaults). */
  readonly hasDefault: boolean;
  /** Identity for de-duplicating the subschemas of a combined schema (Confluent uses a Set). */
  readonly key: string;
}

export interface SimpleNode extends NodeBase {
  readonly kind: 'empty' | 'true' | 'false' | 'null' | 'boolean' | 'conditional';
}

export interface StringNode extends NodeBase {
  readonly kind: 'string';
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
}

/** A number as Java holds it: its `toString()` (Integer/Long/BigInteger/BigDecimal) and its value. */
export interface JavaNumber {
  readonly text: string;
  readonly value: number;
}

export interface NumberNode extends NodeBase {
  readonly kind: 'number';
  readonly requiresInteger: boolean;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: JavaNumber;
}

export interface ObjectNode extends NodeBase {
  readonly kind: 'object';
  /** Property schemas in document order. */
  readonly properties: ReadonlyMap<string, SchemaNode>;
  readonly required: readonly string[];
  readonly additionalProperties: boolean;
  readonly additionalPropertiesSchema?: SchemaNode;
  readonly patternProperties: ReadonlyArray<readonly [string, SchemaNode]>;
  readonly propertyDependencies: ReadonlyMap<string, readonly string[]>;
  readonly schemaDependencies: ReadonlyMap<string, SchemaNode>;
  readonly minProperties?: number;
  readonly maxProperties?: number;
}

export interface ArrayNode extends NodeBase {
  readonly kind: 'array';
  readonly allItems?: SchemaNode;
  readonly tupleItems?: readonly SchemaNode[];
  readonly additionalItems: boolean;
  readonly additionalItemsSchema?: SchemaNode;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems: boolean;
}

export interface EnumNode extends NodeBase {
  readonly kind: 'enum';
  /** Each value's equality key (its JSON text with sorted keys and Java number spelling). */
  readonly values: readonly string[];
}

export interface ConstNode extends NodeBase {
  readonly kind: 'const';
  readonly value: string;
}

export interface NotNode extends NodeBase {
  readonly kind: 'not';
  readonly not: SchemaNode;
}

export type Criterion = 'allOf' | 'anyOf' | 'oneOf';

export interface CombinedNode extends NodeBase {
  readonly kind: 'combined';
  readonly criterion: Criterion;
  readonly subschemas: readonly SchemaNode[];
}

export interface RefNode extends NodeBase {
  readonly kind: 'ref';
  /** The referred schema (resolved, and memoized, by the builder). */
  target(): SchemaNode;
}

export type SchemaNode =
  | SimpleNode
  | StringNode
  | NumberNode
  | ObjectNode
  | ArrayNode
  | EnumNode
  | ConstNode
  | NotNode
  | CombinedNode
  | RefNode;

/** The empty schema or `true`: everything is valid against it. */
export function isEmptyClass(node: SchemaNode): boolean {
  return node.kind === 'empty' || node.kind === 'true';
}
