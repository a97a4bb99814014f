/**
 * The Schema Registry (Confluent's REST API, served on the broker's HTTP listener by
 * http/schema-registry-routes.ts): a coordinator over the one partition of the compacted
 * `_schemas` topic, built on the coordinator runtime as the group coordinator is. The broker that
 * leads `_schemas`-0 holds the state and serves every request; its queue (registry-shard.ts) owns
 * all of it. The topic is created on the first request, so a broker whose registry is never used
 * has no `_schemas` topic and loads none of the format libraries.
 *
 * The format providers (schema-types/) are loaded with a dynamic import() before the first
 * operation that needs them, outside the queue; inside it parsing is synchronous.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { CoordinatorLog } from '../coordinator/runtime/coordinator-log.js';
import { CoordinatorRuntime, answer, type CoordinatorResult } from '../coordinator/runtime/runtime.js';
import { CoordinatorLeadership } from '../coordinator/runtime/coordinator-leadership.js';
import { Errors } from './errors.js';
import { registryRecordSerde, type CompatibilityLevel, type Mode, type RegistryRecord } from './schemas-topic.js';
import { SchemaRegistryShard, type SchemaRequest, type SchemaVersionJson, type VersionSpec } from './registry-shard.js';
import type { SchemaProvider, SchemaReference, SchemaType } from './schema-types/schema-type.js';

export { SchemaRegistryError } from './errors.js';
export type { SchemaRequest, SchemaVersionJson, VersionSpec } from './registry-shard.js';

/** Where the registry's records live (the broker's `_schemas`, or memory in unit tests). */
export interface SchemasTopic {
  exists(): boolean;
  /** Creates the topic (compacted, one partition); resolves once this broker knows it. */
  create(): Promise<void>;
  log(): CoordinatorLog;
  /** The leader epoch this broker leads partition 0 at, or null when another broker leads it. */
  ledEpoch(): number | null;
}

export interface SchemaRegistryOptions {
  clock: Clock;
  logger: Logger;
  topic: SchemasTopic;
  /** schema.compatibility.level (Confluent's setting and default, BACKWARD). */
  compatibility: CompatibilityLevel;
  /** How long a request waits for the shard to load before answering 50002. */
  loadTimeoutMs?: number;
}

/** Thrown when another broker leads `_schemas`: the HTTP side forwards the request there. */
export class NotRegistryLeader extends Error {
  constructor() {
    super('another broker leads the schema registry topic');
  }
}

const PROVIDERS: Record<SchemaType, () => Promise<SchemaProvider>> = {
  AVRO: () => import('./schema-types/avro.js').then((m) => m.avroProvider),
  JSON: () => import('./schema-types/json-schema.js').then((m) => m.jsonSchemaProvider),
  PROTOBUF: () => import('./schema-types/protobuf.js').then((m) => m.protobufProvider),
};
export const SCHEMA_TYPES: readonly SchemaType[] = ['JSON', 'PROTOBUF', 'AVRO'];

export class SchemaRegistry {
  private readonly runtime: CoordinatorRuntime<SchemaRegistryShard, RegistryRecord>;
  private readonly leadership: CoordinatorLeadership<SchemaRegistryShard, RegistryRecord>;
  private readonly providers = new Map<SchemaType, SchemaProvider>();
  private readonly loadingProviders = new Map<SchemaType, Promise<SchemaProvider>>();
  private activating: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly opts: SchemaRegistryOptions) {
    this.runtime = new CoordinatorRuntime<SchemaRegistryShard, RegistryRecord>({
      name: 'schema registry',
      clock: opts.clock,
      logger: opts.logger,
      serde: registryRecordSerde,
      newShard: (ctx) => new SchemaRegistryShard(ctx, {
        compatibility: opts.compatibility,
        provider: (type) => {
          const p = this.providers.get(type);
          if (!p) throw new Error(`schema provider ${type} not loaded`);
          return p;
        },
      }),
    });
    this.leadership = new CoordinatorLeadership(this.runtime, { ledEpoch: () => opts.topic.ledEpoch(), log: () => opts.topic.log() }, opts.logger, 'schema registry');
  }

  /** Start-up: load an existing `_schemas` (a new one is created by the first request). */
  async startup(): Promise<void> {
    if (this.opts.topic.exists()) await this.ensureActive().catch(() => undefined);
  }

  /** `_schemas`-0 changed leader: load or unload the shard. */
  onLeadershipChange(): Promise<void> {
    return this.activating && !this.closed ? this.activating.then(() => this.leadership.reconcile(), () => undefined) : Promise.resolve();
  }

  private ensureActive(): Promise<void> {
    if (this.closed) return Promise.reject(Errors.unknownLeader('the schema registry is shutting down'));
    if (!this.activating) {
      this.activating = (async () => {
        if (!this.opts.topic.exists()) await this.opts.topic.create();
        await this.leadership.start(1);
      })().catch((err) => {
        this.activating = null;
        this.opts.logger.error('schema registry: loading _schemas failed', err);
        throw Errors.store(`Error while loading the schemas topic: ${(err as Error).message}`);
      });
    }
    return this.activating;
  }

  private provider(type: SchemaType): Promise<SchemaProvider> {
    const loaded = this.providers.get(type);
    if (loaded) return Promise.resolve(loaded);
    let p = this.loadingProviders.get(type);
    if (!p) {
      p = PROVIDERS[type]().then((provider) => {
        this.providers.set(type, provider);
        return provider;
      });
      p.catch(() => this.loadingProviders.delete(type));
      this.loadingProviders.set(type, p);
    }
    return p;
  }

  /** Runs `op` in the shard's queue once the shard is loaded here (waiting for a load in progress). */
  private async run<T>(op: (shard: SchemaRegistryShard) => CoordinatorResult<T, RegistryRecord>, types: readonly SchemaType[] = []): Promise<T> {
    await this.ensureActive();
    for (const t of types) await this.provider(t);
    const deadline = this.opts.clock.now() + (this.opts.loadTimeoutMs ?? 10_000);
    for (;;) {
      try {
        this.leadership.check(0);
        return await this.runtime.schedule(0, op);
      } catch (err) {
        if (!(err instanceof KafkaApiError)) throw err;
        if (err.errorCode === ErrorCode.NOT_COORDINATOR && this.opts.topic.ledEpoch() === null) throw new NotRegistryLeader();
        const retriable = err.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS || err.errorCode === ErrorCode.NOT_COORDINATOR;
        if (!retriable) throw Errors.store(`Error while writing to the schemas topic: ${err.message}`);
        if (this.opts.clock.now() >= deadline) throw Errors.timeout('The schema registry is still loading the schemas topic');
        await new Promise((r) => setTimeout(r, 25));
      }
    }
  }

  private read<T>(op: (shard: SchemaRegistryShard) => T, types: readonly SchemaType[] = []): Promise<T> {
    return this.run((s) => answer(op(s)), types);
  }

  // --- the API (http/schema-registry-routes.ts maps Confluent's endpoints onto these) ---

  register(subject: string, req: SchemaRequest, normalize = false): Promise<{ id: number }> {
    return this.run((s) => s.register(subject, req, normalize), [req.schemaType]);
  }

  lookup(subject: string, req: SchemaRequest, opts: { normalize?: boolean; deleted?: boolean } = {}): Promise<SchemaVersionJson> {
    return this.read((s) => s.lookup(subject, req, opts.normalize ?? false, opts.deleted ?? false), [req.schemaType]);
  }

  testCompatibility(subject: string, version: VersionSpec | null, req: SchemaRequest, normalize = false): Promise<{ compatible: boolean; messages: string[] }> {
    return this.read((s) => s.testCompatibility(subject, version, req, normalize), [req.schemaType]);
  }

  getVersion(subject: string, version: VersionSpec, deleted = false): Promise<SchemaVersionJson> {
    return this.read((s) => s.getVersion(subject, version, deleted));
  }

  listVersions(subject: string, deleted = false): Promise<number[]> {
    return this.read((s) => s.listVersions(subject, deleted));
  }

  listSubjects(prefix = '', deleted = false): Promise<string[]> {
    return this.read((s) => s.listSubjects(prefix, deleted));
  }

  listSchemas(prefix = '', deleted = false, latestOnly = false): Promise<SchemaVersionJson[]> {
    return this.read((s) => s.listSchemas(prefix, deleted, latestOnly));
  }

  schemaById(id: number): Promise<{ schemaType?: SchemaType; references?: SchemaReference[]; schema: string }> {
    return this.read((s) => s.schemaById(id));
  }

  versionsById(id: number, deleted = false): Promise<{ subject: string; version: number }[]> {
    return this.read((s) => s.versionsById(id, deleted));
  }

  referencedBy(subject: string, version: VersionSpec): Promise<number[]> {
    return this.read((s) => s.referencedBy(subject, version));
  }

  deleteVersion(subject: string, version: VersionSpec, permanent = false): Promise<number> {
    return this.run((s) => s.deleteVersion(subject, version, permanent));
  }

  deleteSubject(subject: string, permanent = false): Promise<number[]> {
    return this.run((s) => s.deleteSubject(subject, permanent));
  }

  getConfig(subject: string | null, defaultToGlobal = false): Promise<{ compatibilityLevel: CompatibilityLevel }> {
    return this.read((s) => s.getConfig(subject, defaultToGlobal));
  }

  setConfig(subject: string | null, level: CompatibilityLevel): Promise<{ compatibility: CompatibilityLevel }> {
    return this.run((s) => s.setConfig(subject, level));
  }

  deleteConfig(subject: string | null): Promise<{ compatibilityLevel: CompatibilityLevel }> {
    return this.run((s) => s.deleteConfig(subject));
  }

  getMode(subject: string | null, defaultToGlobal = false): Promise<{ mode: Mode }> {
    return this.read((s) => s.getMode(subject, defaultToGlobal));
  }

  setMode(subject: string | null, mode: Mode, force = false): Promise<{ mode: Mode }> {
    return this.run((s) => s.setMode(subject, mode, force));
  }

  deleteMode(subject: string): Promise<{ mode: Mode }> {
    return this.run((s) => s.deleteMode(subject));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.runtime.close();
  }
}

const MAX_REFERENCE_DEPTH = 32;

/**
 * The schemas `refs` name, transitively and each once, every schema after the ones it references:
 * the order a reader (avsc's registry of named types, protobufjs's files) must load them in.
 * Soft-deleted versions count (a stored schema keeps referring to them).
 */
export async function referencedSchemas(registry: Pick<SchemaRegistry, 'getVersion'>, refs: readonly SchemaReference[]): Promise<{ name: string; schema: string }[]> {
  const out: { name: string; schema: string }[] = [];
  const seen = new Set<string>();
  const walk = async (list: readonly SchemaReference[], depth: number): Promise<void> => {
    if (depth > MAX_REFERENCE_DEPTH) throw new Error(`schema references nest more than ${MAX_REFERENCE_DEPTH} deep`);
    for (const ref of list) {
      const key = `${ref.subject}\u0000${ref.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const v = await registry.getVersion(ref.subject, ref.version === -1 ? 'latest' : ref.version, true);
      await walk(v.references ?? [], depth + 1);
      out.push({ name: ref.name, schema: v.schema });
    }
  };
  await walk(refs, 0);
  return out;
}
