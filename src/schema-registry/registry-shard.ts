/**
 * The Schema Registry's state and operations: a coordinator shard (coordinator/runtime) over the
 * one partition of `_schemas`. Every operation runs in the shard's queue, so the checks of a
 * registration (is it there already, is it compatible, which id, which version) and the record it
 * writes agree: the queue owns all of this state. State changes only by replaying records
 * (schemas-topic.ts), live or when the shard loads.
 *
 * Confluent's behaviour is the model (KafkaSchemaRegistry and its REST resources): ids are global
 * and shared by equal schemas (same type, same canonical text, same references), versions count
 * per subject, soft deletes hide and permanent deletes remove, subject-level compatibility and
 * mode override the global ones.
 */
import type { CoordinatorResult, CoordinatorShard, ShardContext } from '../coordinator/runtime/runtime.js';
import { answer } from '../coordinator/runtime/runtime.js';
import { Errors } from './errors.js';
import type { CompatibilityLevel, Mode, RegistryRecord, SchemaValue } from './schemas-topic.js';
import { InvalidSchemaError, type ParsedSchema, type ResolvedReference, type SchemaProvider, type SchemaReference, type SchemaType } from './schema-types/schema-type.js';

/** A schema as a registration, lookup or compatibility check sends it. */
export interface SchemaRequest {
  schema: string;
  schemaType: SchemaType;
  references: SchemaReference[];
  /** IMPORT mode only: the id and version to register it at. */
  id?: number;
  version?: number;
}

/** A version as GET /subjects/{s}/versions/{v} answers it (schemaType and references only when not the defaults). */
export interface SchemaVersionJson {
  subject: string;
  version: number;
  id: number;
  schemaType?: SchemaType;
  references?: SchemaReference[];
  schema: string;
}

/** 'latest' is Confluent's "latest" or -1. */
export type VersionSpec = number | 'latest';

export interface RegistryDefaults {
  /** schema.compatibility.level: the global level until one is set. */
  compatibility: CompatibilityLevel;
  /** The providers already loaded (the registry loads them before scheduling an operation). */
  provider(type: SchemaType): SchemaProvider;
}

const MAX_REFERENCE_DEPTH = 32;

export function versionJson(v: SchemaValue): SchemaVersionJson {
  return {
    subject: v.subject, version: v.version, id: v.id,
    ...(v.schemaType !== 'AVRO' ? { schemaType: v.schemaType } : {}),
    ...(v.references.length > 0 ? { references: v.references } : {}),
    schema: v.schema,
  };
}

function contentKey(type: SchemaType, canonical: string, refs: readonly SchemaReference[]): string {
  return `${type}\u0000${canonical}\u0000${JSON.stringify(refs.map((r) => [r.name, r.subject, r.version]))}`;
}

interface Content {
  schemaType: SchemaType;
  schema: string;
  references: SchemaReference[];
}

export class SchemaRegistryShard implements CoordinatorShard<RegistryRecord> {
  /** subject → version → the stored version (soft-deleted ones included). */
  private readonly subjects = new Map<string, Map<number, SchemaValue>>();
  /** id → its schema, while some version uses it. */
  private readonly contents = new Map<number, Content>();
  /** id → the `subject\0version` keys that use it. */
  private readonly uses = new Map<number, Set<string>>();
  private readonly idByContent = new Map<string, number>();
  private readonly parsed = new Map<number, ParsedSchema>();
  private maxId = 0;
  private globalLevel: CompatibilityLevel | null = null;
  private readonly subjectLevels = new Map<string, CompatibilityLevel>();
  private globalMode: Mode | null = null;
  private readonly subjectModes = new Map<string, Mode>();

  constructor(private readonly ctx: ShardContext<RegistryRecord>, private readonly defaults: RegistryDefaults) {}

  // --- replay: the only way state changes ---

  replay(r: RegistryRecord): void {
    switch (r.kind) {
      case 'schema': return this.replaySchema(r.subject, r.version, r.value);
      case 'config':
        if (r.subject === null) this.globalLevel = r.level;
        else if (r.level === null) this.subjectLevels.delete(r.subject);
        else this.subjectLevels.set(r.subject, r.level);
        return;
      case 'mode':
        if (r.subject === null) this.globalMode = r.mode;
        else if (r.mode === null) this.subjectModes.delete(r.subject);
        else this.subjectModes.set(r.subject, r.mode);
        return;
      case 'delete-subject':
        if (r.version === null) return;
        for (const v of this.subjects.get(r.subject)?.values() ?? []) if (v.version <= r.version) v.deleted = true;
        return;
      case 'max-id':
        this.maxId = Math.max(this.maxId, r.maxId);
        return;
    }
  }

  private replaySchema(subject: string, version: number, value: SchemaValue | null): void {
    let versions = this.subjects.get(subject);
    const previous = versions?.get(version);
    const useKey = `${subject}\u0000${version}`;
    if (previous) this.dropUse(previous.id, useKey);
    if (!value) {
      versions?.delete(version);
      if (versions?.size === 0) this.subjects.delete(subject);
      return;
    }
    if (!versions) this.subjects.set(subject, (versions = new Map()));
    versions.set(version, { ...value });
    this.maxId = Math.max(this.maxId, value.id);
    if (!this.contents.has(value.id)) this.contents.set(value.id, { schemaType: value.schemaType, schema: value.schema, references: value.references });
    this.idByContent.set(contentKey(value.schemaType, value.schema, value.references), value.id);
    let u = this.uses.get(value.id);
    if (!u) this.uses.set(value.id, (u = new Set()));
    u.add(useKey);
  }

  private dropUse(id: number, useKey: string): void {
    const u = this.uses.get(id);
    if (!u) return;
    u.delete(useKey);
    if (u.size > 0) return;
    this.uses.delete(id);
    const c = this.contents.get(id);
    if (c) this.idByContent.delete(contentKey(c.schemaType, c.schema, c.references));
    this.contents.delete(id);
    this.parsed.delete(id);
  }

  onLoaded(): void {
    this.ctx.logger.info(`schema registry: ${this.subjects.size} subjects, ${this.contents.size} schemas, highest id ${this.maxId}`);
  }

  onUnloaded(): void {}

  // --- parsing and references ---

  private resolve(refs: readonly SchemaReference[], depth = 0): ResolvedReference[] {
    if (depth > MAX_REFERENCE_DEPTH) throw Errors.invalidSchema(`Invalid schema: references nested more than ${MAX_REFERENCE_DEPTH} deep`);
    return refs.map((ref) => {
      const v = ref.version === -1 ? this.latest(ref.subject) : this.subjects.get(ref.subject)?.get(ref.version);
      if (!v) throw Errors.invalidSchema(`Invalid schema: reference '${ref.name}' to subject '${ref.subject}' version ${ref.version} not found`);
      return { name: ref.name, schema: v.schema, references: this.resolve(v.references, depth + 1) };
    });
  }

  private parse(req: { schemaType: SchemaType; schema: string; references: readonly SchemaReference[] }): ParsedSchema {
    const refs = this.resolve(req.references);
    try {
      return this.defaults.provider(req.schemaType).parse(req.schema, refs);
    } catch (err) {
      if (err instanceof InvalidSchemaError) throw Errors.invalidSchema(`Invalid schema: ${err.message}`);
      throw err;
    }
  }

  private parsedById(id: number): ParsedSchema {
    let p = this.parsed.get(id);
    if (!p) {
      const c = this.contents.get(id)!;
      p = this.parse(c);
      this.parsed.set(id, p);
    }
    return p;
  }

  // --- lookups ---

  private latest(subject: string): SchemaValue | undefined {
    let best: SchemaValue | undefined;
    for (const v of this.subjects.get(subject)?.values() ?? []) if (!v.deleted && (!best || v.version > best.version)) best = v;
    return best;
  }

  private live(subject: string): SchemaValue[] {
    return [...(this.subjects.get(subject)?.values() ?? [])].filter((v) => !v.deleted).sort((a, b) => a.version - b.version);
  }

  private hasSubject(subject: string, deleted: boolean): boolean {
    const versions = this.subjects.get(subject);
    if (!versions) return false;
    if (deleted) return versions.size > 0;
    for (const v of versions.values()) if (!v.deleted) return true;
    return false;
  }

  /** The version `spec` names, as GET /subjects/{s}/versions/{v} finds it. */
  private version(subject: string, spec: VersionSpec, deleted: boolean): SchemaValue {
    if (spec === 'latest') {
      const v = this.latest(subject);
      if (!v) throw Errors.subjectNotFound(subject);
      return v;
    }
    if (!this.hasSubject(subject, true)) throw Errors.subjectNotFound(subject);
    const v = this.subjects.get(subject)!.get(spec);
    if (!v || (v.deleted && !deleted)) throw Errors.versionNotFound(spec);
    return v;
  }

  levelFor(subject: string | null): CompatibilityLevel {
    return (subject !== null ? this.subjectLevels.get(subject) : undefined) ?? this.globalLevel ?? this.defaults.compatibility;
  }

  private modeFor(subject: string | null): Mode {
    return (subject !== null ? this.subjectModes.get(subject) : undefined) ?? this.globalMode ?? 'READWRITE';
  }

  private checkWritable(subject: string): void {
    if (this.modeFor(subject) === 'READONLY') throw Errors.notPermitted(`Subject ${subject} is in read-only mode`);
  }

  /** The live versions that reference `subject` version `version`, as schema ids. */
  private referrers(subject: string, version: number): number[] {
    const ids = new Set<number>();
    for (const versions of this.subjects.values()) {
      for (const v of versions.values()) {
        if (!v.deleted && v.references.some((r) => r.subject === subject && r.version === version)) ids.add(v.id);
      }
    }
    return [...ids].sort((a, b) => a - b);
  }

  // --- compatibility ---

  /** Why `proposed` may not join `subject` at `level`: Confluent's messages, empty when it may. */
  private incompatibilities(level: CompatibilityLevel, proposed: ParsedSchema, against: SchemaValue[]): string[] {
    if (level === 'NONE') return [];
    // FULL lists the FORWARD findings first, as Confluent's validator does.
    const directions = level.startsWith('BACKWARD') ? (['BACKWARD'] as const) : level.startsWith('FORWARD') ? (['FORWARD'] as const) : (['FORWARD', 'BACKWARD'] as const);
    // Newest first: a non-transitive level checks the latest version only.
    const olds = [...against].sort((a, b) => b.version - a.version);
    for (const old of level.endsWith('_TRANSITIVE') ? olds : olds.slice(0, 1)) {
      const messages = old.schemaType !== proposed.schemaType
        ? ['Incompatible because of different schema type']
        : directions.flatMap((d) => this.defaults.provider(old.schemaType).checkCompatibility(d, proposed, this.parsedById(old.id)));
      if (messages.length > 0) {
        return [...messages, `{oldSchemaVersion: ${old.version}}`, `{oldSchema: '${old.schema}'}`, `{validateFields: 'false', compatibility: '${level}'}`];
      }
    }
    return [];
  }

  // --- operations (each one queued) ---

  register(subject: string, req: SchemaRequest, normalize: boolean): CoordinatorResult<{ id: number }, RegistryRecord> {
    this.checkWritable(subject);
    const mode = this.modeFor(subject);
    let parsed = this.parse(req);
    if (normalize) parsed = parsed.normalize();
    const key = contentKey(req.schemaType, parsed.canonical, req.references);
    const sameId = this.idByContent.get(key);
    const versions = this.subjects.get(subject);
    if (sameId !== undefined) {
      for (const v of versions?.values() ?? []) if (!v.deleted && v.id === sameId && (req.id === undefined || req.id === sameId)) return answer({ id: sameId });
    }
    let id: number;
    if (req.id !== undefined && req.id >= 0) {
      if (mode !== 'IMPORT') throw Errors.notPermitted(`Subject ${subject} is not in import mode`);
      const existing = this.contents.get(req.id);
      if (existing && contentKey(existing.schemaType, existing.schema, existing.references) !== key) {
        throw Errors.idMismatch(`Schema already registered with id ${req.id} instead of input id ${req.id}`);
      }
      id = req.id;
    } else {
      if (mode !== 'IMPORT') {
        const messages = this.incompatibilities(this.levelFor(subject), parsed, this.live(subject));
        if (messages.length > 0) throw Errors.incompatible(`Schema being registered is incompatible with an earlier schema for subject "${subject}", details: [${messages.join(', ')}]`);
      }
      id = sameId ?? this.maxId + 1;
    }
    // IMPORT keeps the version it is given; otherwise the next after every version (deleted ones too).
    let version = mode === 'IMPORT' && req.version !== undefined && req.version > 0 ? req.version : 0;
    if (version === 0) version = Math.max(0, ...(versions?.keys() ?? [])) + 1;
    const value: SchemaValue = { subject, version, id, schemaType: req.schemaType, schema: parsed.canonical, references: req.references, deleted: false };
    return { records: [{ kind: 'schema', subject, version, value }], response: () => ({ id }) };
  }

  /** POST /subjects/{s}: the version of `subject` holding this schema. */
  lookup(subject: string, req: SchemaRequest, normalize: boolean, deleted: boolean): SchemaVersionJson {
    if (!this.hasSubject(subject, deleted)) throw Errors.subjectNotFound(subject);
    let parsed = this.parse(req);
    if (normalize) parsed = parsed.normalize();
    const id = this.idByContent.get(contentKey(req.schemaType, parsed.canonical, req.references));
    let found: SchemaValue | undefined;
    for (const v of this.subjects.get(subject)!.values()) {
      if (v.id === id && (deleted || !v.deleted) && (!found || v.version > found.version)) found = v;
    }
    if (!found) throw Errors.schemaNotFound();
    return versionJson(found);
  }

  /** POST /compatibility/subjects/{s}/versions[/{v}]: `spec` null checks the versions the subject's level names. */
  testCompatibility(subject: string, spec: VersionSpec | null, req: SchemaRequest, normalize: boolean): { compatible: boolean; messages: string[] } {
    let parsed = this.parse(req);
    if (normalize) parsed = parsed.normalize();
    const level = this.levelFor(subject);
    let against: SchemaValue[];
    let checkLevel = level;
    if (spec === null) {
      against = this.live(subject);
    } else {
      against = [this.version(subject, spec, false)];
      checkLevel = level.replace('_TRANSITIVE', '') as CompatibilityLevel;
    }
    const messages = this.incompatibilities(checkLevel, parsed, against);
    return { compatible: messages.length === 0, messages };
  }

  getVersion(subject: string, spec: VersionSpec, deleted: boolean): SchemaVersionJson {
    return versionJson(this.version(subject, spec, deleted));
  }

  listVersions(subject: string, deleted: boolean): number[] {
    if (!this.hasSubject(subject, deleted)) throw Errors.subjectNotFound(subject);
    return [...this.subjects.get(subject)!.values()].filter((v) => deleted || !v.deleted).map((v) => v.version).sort((a, b) => a - b);
  }

  listSubjects(prefix: string, deleted: boolean): string[] {
    return [...this.subjects.keys()].filter((s) => s.startsWith(prefix) && this.hasSubject(s, deleted)).sort();
  }

  listSchemas(prefix: string, deleted: boolean, latestOnly: boolean): SchemaVersionJson[] {
    const out: SchemaVersionJson[] = [];
    for (const subject of this.listSubjects(prefix, deleted)) {
      const versions = [...this.subjects.get(subject)!.values()].filter((v) => deleted || !v.deleted).sort((a, b) => a.version - b.version);
      for (const v of latestOnly ? versions.slice(-1) : versions) out.push(versionJson(v));
    }
    return out;
  }

  schemaById(id: number): { schemaType?: SchemaType; references?: SchemaReference[]; schema: string } {
    const c = this.contents.get(id);
    if (!c) throw Errors.schemaNotFound(id);
    return { ...(c.schemaType !== 'AVRO' ? { schemaType: c.schemaType } : {}), ...(c.references.length > 0 ? { references: c.references } : {}), schema: c.schema };
  }

  /** The subject/version pairs using schema `id`. */
  versionsById(id: number, deleted: boolean): { subject: string; version: number }[] {
    if (!this.contents.has(id)) throw Errors.schemaNotFound(id);
    const out: { subject: string; version: number }[] = [];
    for (const key of this.uses.get(id) ?? []) {
      const [subject, version] = key.split('\u0000');
      const v = this.subjects.get(subject)?.get(Number(version));
      if (v && (deleted || !v.deleted)) out.push({ subject, version: v.version });
    }
    return out.sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : a.version - b.version));
  }

  referencedBy(subject: string, spec: VersionSpec): number[] {
    const v = this.version(subject, spec, true);
    return this.referrers(subject, v.version);
  }

  deleteVersion(subject: string, spec: VersionSpec, permanent: boolean): CoordinatorResult<number, RegistryRecord> {
    this.checkWritable(subject);
    if (!this.hasSubject(subject, true)) throw Errors.subjectNotFound(subject);
    const v = spec === 'latest' ? this.latest(subject) : this.subjects.get(subject)!.get(spec);
    if (!v) throw spec === 'latest' ? Errors.subjectNotFound(subject) : Errors.versionNotFound(spec);
    if (!permanent && v.deleted) throw Errors.versionSoftDeleted(subject, v.version);
    if (permanent && !v.deleted) throw Errors.versionNotSoftDeleted(subject, v.version);
    const referrers = this.referrers(subject, v.version);
    if (referrers.length > 0) throw Errors.referenceExists(`One or more references exist to the schema {magic=1,keytype=SCHEMA,subject=${subject},version=${v.version}}.`);
    const records: RegistryRecord[] = permanent
      ? [{ kind: 'schema', subject, version: v.version, value: null }, { kind: 'max-id', maxId: this.maxId }]
      : [{ kind: 'schema', subject, version: v.version, value: { ...v, deleted: true } }];
    return { records, response: () => v.version };
  }

  deleteSubject(subject: string, permanent: boolean): CoordinatorResult<number[], RegistryRecord> {
    this.checkWritable(subject);
    if (!this.hasSubject(subject, true)) throw Errors.subjectNotFound(subject);
    const all = [...this.subjects.get(subject)!.values()].sort((a, b) => a.version - b.version);
    const live = all.filter((v) => !v.deleted);
    if (!permanent && live.length === 0) throw Errors.subjectSoftDeleted(subject);
    if (permanent && live.length > 0) throw Errors.subjectNotSoftDeleted(subject);
    for (const v of permanent ? all : live) {
      if (this.referrers(subject, v.version).length > 0) throw Errors.referenceExists(`One or more references exist to the schema {magic=1,keytype=SCHEMA,subject=${subject},version=${v.version}}.`);
    }
    if (!permanent) {
      const latest = live[live.length - 1].version;
      return { records: [{ kind: 'delete-subject', subject, version: latest }], response: () => live.map((v) => v.version) };
    }
    const records: RegistryRecord[] = all.map((v) => ({ kind: 'schema', subject, version: v.version, value: null }));
    records.push({ kind: 'delete-subject', subject, version: null }, { kind: 'max-id', maxId: this.maxId });
    if (this.subjectLevels.has(subject)) records.push({ kind: 'config', subject, level: null });
    if (this.subjectModes.has(subject)) records.push({ kind: 'mode', subject, mode: null });
    return { records, response: () => all.map((v) => v.version) };
  }

  getConfig(subject: string | null, defaultToGlobal: boolean): { compatibilityLevel: CompatibilityLevel } {
    if (subject !== null && !this.subjectLevels.has(subject) && !defaultToGlobal) throw Errors.subjectCompatibilityNotConfigured(subject);
    return { compatibilityLevel: this.levelFor(subject) };
  }

  setConfig(subject: string | null, level: CompatibilityLevel): CoordinatorResult<{ compatibility: CompatibilityLevel }, RegistryRecord> {
    return { records: [{ kind: 'config', subject, level }], response: () => ({ compatibility: level }) };
  }

  deleteConfig(subject: string | null): CoordinatorResult<{ compatibilityLevel: CompatibilityLevel }, RegistryRecord> {
    const previous = this.levelFor(subject);
    if (subject !== null && !this.subjectLevels.has(subject)) throw Errors.subjectNotFound(subject);
    return { records: [{ kind: 'config', subject, level: null }], response: () => ({ compatibilityLevel: previous }) };
  }

  getMode(subject: string | null, defaultToGlobal: boolean): { mode: Mode } {
    if (subject !== null && !this.subjectModes.has(subject) && !defaultToGlobal) throw Errors.subjectModeNotConfigured(subject);
    return { mode: this.modeFor(subject) };
  }

  setMode(subject: string | null, mode: Mode, force: boolean): CoordinatorResult<{ mode: Mode }, RegistryRecord> {
    if (mode === 'IMPORT' && !force) {
      const nonEmpty = subject === null ? this.listSubjects('', false).length > 0 : this.hasSubject(subject, false);
      if (nonEmpty) throw Errors.notPermitted('Cannot import since found existing subjects');
    }
    return { records: [{ kind: 'mode', subject, mode }], response: () => ({ mode }) };
  }

  deleteMode(subject: string): CoordinatorResult<{ mode: Mode }, RegistryRecord> {
    if (!this.subjectModes.has(subject)) throw Errors.subjectNotFound(subject);
    const previous = this.modeFor(subject);
    return { records: [{ kind: 'mode', subject, mode: null }], response: () => ({ mode: previous }) };
  }

}
