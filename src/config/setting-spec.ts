/** How the settings table (settings.ts) and its per-area parts describe one setting. */
export type SettingType = 'boolean' | 'string' | 'int' | 'short' | 'long' | 'double' | 'list' | 'password';

export interface SettingSpec {
  readonly type: SettingType;
  /** Default in Kafka's text form; null = no default. */
  readonly default: string | null;
  readonly doc: string;
  /** Inclusive numeric bounds (numbers, or each list element's length never; numbers only). */
  readonly min?: number;
  readonly max?: number;
  /** Allowed values: the whole value for strings, each element for lists. */
  readonly oneOf?: readonly string[];
  /** Whether `oneOf` compares case-insensitively (Kafka's ValidString is case-sensitive). */
  readonly caseInsensitive?: boolean;
  /** Extra validation of the typed value; returns an error message or null. */
  readonly check?: (value: never) => string | null;
  /**
   * Broker settings only: lower-priority settings this one falls back to, in Kafka's order. When
   * present the setting's typed value is the effective value of the whole group.
   */
  readonly fallbacks?: readonly string[];
  /** Broker settings only: multiply this setting's value by this to get its group head's unit (hours → ms). */
  readonly scale?: number;
  /** Topic configs only: the broker settings it inherits from, highest priority first. */
  readonly synonyms?: readonly string[];
  /**
   * Topic configs only: Samsa's own configs (views, schedule topics) are described (DescribeConfigs,
   * CreateTopics v5+) only where a topic sets them, so every other topic lists what Kafka lists.
   */
  readonly describedWhenSet?: boolean;
}

/** The value type of a setting type. */
export type ValueOfType<T> = T extends 'boolean' ? boolean
  : T extends 'int' | 'short' | 'long' | 'double' ? number
  : T extends 'list' ? string[]
  : string;

/** A setting's typed value; null is possible only where the default is null and the setting derives nothing. */
export type ValueOfSpec<S> = S extends { readonly type: infer T }
  ? ValueOfType<T> | (S extends { readonly default: null } ? (S extends { readonly fallbacks: readonly string[] } ? never : null) : never)
  : never;

/**
 * One room's typed configuration, derived from its part of the settings table: Kafka's names,
 * values typed as the table declares them. The broker's whole BrokerConfig fits every one of
 * them, so the composition root hands each room the config it has and the room sees only its own.
 */
export type SettingsOf<T> = { readonly [K in keyof T]: ValueOfSpec<T[K]> };
