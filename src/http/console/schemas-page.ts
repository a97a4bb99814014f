/**
 * `/schema-registry` (every subject: its latest version, schema id and type, its compatibility
 * level or the global one it falls back to) and `/schema-registry/<subject>` (its versions with
 * ids, types and references; one version's schema, Avro and JSON Schema pretty-printed; a line
 * diff between two versions, ?from=A&to=B). Read-only: changes go through the registry's REST API
 * (/subjects, /config, ...). Only the broker leading `_schemas` holds the registry's state; on the
 * others these pages point to its console.
 */
import type { HttpContext } from '../context.js';
import { BadRequest } from '../context.js';
import { sendHtml } from '../respond.js';
import { esc, page, pathFor, query, table } from './layout.js';
import { diffLines, foldUnchanged } from './line-diff.js';
import { NotRegistryLeader, SchemaRegistryError, type SchemaRegistry, type SchemaVersionJson, type VersionSpec } from '../../schema-registry/schema-registry.js';
import { SCHEMAS_TOPIC } from '../../schema-registry/schemas-topic.js';

const SECTION = '/schema-registry';

/** Renders `title` with the body `render` builds, or says why the registry cannot answer here. */
async function registryPage(ctx: HttpContext, title: string, render: (r: SchemaRegistry) => Promise<string>): Promise<void> {
  const r = ctx.broker.schemaRegistry;
  let body: string;
  if (!r) {
    body = '<p class="empty" id="registry-disabled">The Schema Registry is disabled on this broker (<code>samsa.schema.registry.enable=false</code>).</p>';
  } else {
    try {
      body = await render(r);
    } catch (err) {
      if (err instanceof NotRegistryLeader) body = leaderElsewhere(ctx);
      else if (err instanceof SchemaRegistryError) throw new BadRequest(err.status, err.message);
      else throw err;
    }
  }
  sendHtml(ctx.res, 200, page(ctx, title, body, { section: SECTION }));
}

/** Another broker leads `_schemas`-0: a link to the same page on its listener, when it registered one. */
function leaderElsewhere(ctx: HttpContext): string {
  const cache = ctx.broker.metadataCache;
  const topic = cache.topic(SCHEMAS_TOPIC);
  const leader = topic ? cache.partition(topic.topicId, 0)?.leader : undefined;
  const url = leader !== undefined && leader >= 0 ? cache.brokers.get(leader)?.httpUrls?.[0] : undefined;
  const here = pathFor(...ctx.segments) + query(Object.fromEntries(ctx.query));
  return `<p class="empty" id="registry-elsewhere">The Schema Registry is served by broker ${esc(leader ?? '(unknown)')}, the leader of <code>${esc(SCHEMAS_TOPIC)}</code>.`
    + (url ? ` <a href="${esc(url + here)}">Open this page there</a>.` : '') + '</p>';
}

/** A subject's own compatibility level, or the global one marked as such. */
async function compatibilityOf(r: SchemaRegistry, subject: string, global: () => Promise<string>): Promise<{ level: string; own: boolean }> {
  try {
    return { level: (await r.getConfig(subject, false)).compatibilityLevel, own: true };
  } catch (err) {
    if (err instanceof SchemaRegistryError && err.status === 404) return { level: await global(), own: false };
    throw err;
  }
}

function levelHtml(c: { level: string; own: boolean }): string {
  return `${esc(c.level)}${c.own ? '' : ' <span class="muted">(global)</span>'}`;
}

/** The topic a subject of the default naming strategy (`<topic>-key`, `<topic>-value`) belongs to, if it exists. */
function topicOf(ctx: HttpContext, subject: string): string | null {
  const m = /^(.+)-(key|value)$/.exec(subject);
  return m && ctx.broker.metadataCache.topic(m[1]) ? m[1] : null;
}

export function schemasPage(ctx: HttpContext): Promise<void> {
  return registryPage(ctx, 'Schemas', async (r) => {
    const globalLevel = (await r.getConfig(null, true)).compatibilityLevel;
    const latest = await r.listSchemas('', false, true);
    const rows: string[][] = [];
    for (const v of latest) {
      const c = await compatibilityOf(r, v.subject, async () => globalLevel);
      const topic = topicOf(ctx, v.subject);
      rows.push([
        `<a href="${esc(pathFor('schema-registry', v.subject))}">${esc(v.subject)}</a>`,
        `<span class="num">${esc(v.version)}</span>`, `<span class="num">${esc(v.id)}</span>`,
        esc(v.schemaType ?? 'AVRO'), levelHtml(c),
        topic ? `<a href="${esc(pathFor('topics', topic, 'messages') + query({ format: 'schema' }))}">${esc(topic)}</a>` : '',
      ]);
    }
    return `<p>Global compatibility level <b id="global-compatibility">${esc(globalLevel)}</b> · ${esc(latest.length)} subjects</p>`
      + table(['Subject', 'Latest version', 'Id', 'Type', 'Compatibility', 'Topic'], rows, { id: 'subjects', empty: 'No subjects registered.' })
      + '<p class="muted">Register and change schemas through the registry\'s REST API (<code>/subjects</code>, <code>/config</code>), as Confluent\'s clients and tools do.</p>';
  });
}

/** A schema's text as shown: Avro and JSON Schema re-indented, Protobuf as stored. */
export function prettySchema(v: { schemaType?: string; schema: string }): string {
  if (v.schemaType === 'PROTOBUF') return v.schema;
  try {
    return JSON.stringify(JSON.parse(v.schema), null, 2);
  } catch {
    return v.schema;
  }
}

function versionParam(ctx: HttpContext, name: string): VersionSpec | null {
  const t = ctx.query.get(name);
  if (t === null || t === '') return null;
  if (t === 'latest') return 'latest';
  if (!/^\d{1,10}$/.test(t)) throw new BadRequest(400, `${name}: a version number or "latest"`);
  return Number(t);
}

export function subjectPage(ctx: HttpContext, subject: string): Promise<void> {
  return registryPage(ctx, `Subject ${subject}`, async (r) => {
    const numbers = await r.listVersions(subject);
    const versions: SchemaVersionJson[] = [];
    for (const n of numbers) versions.push(await r.getVersion(subject, n));
    const selected = await r.getVersion(subject, versionParam(ctx, 'version') ?? 'latest');
    const c = await compatibilityOf(r, subject, async () => (await r.getConfig(null, true)).compatibilityLevel);
    const link = (params: Record<string, string | number>) => esc(pathFor('schema-registry', subject) + query(params));
    const rows = versions.map((v, i) => [
      `<a href="${link({ version: v.version })}">${esc(v.version)}</a>${v.version === selected.version ? ' <span class="muted">(shown)</span>' : ''}`,
      `<span class="num">${esc(v.id)}</span>`, esc(v.schemaType ?? 'AVRO'),
      (v.references ?? []).map((ref) => `<code>${esc(ref.name)}</code> → <a href="${esc(pathFor('schema-registry', ref.subject) + query({ version: ref.version }))}">${esc(ref.subject)} v${esc(ref.version)}</a>`).join('<br>') || '<span class="muted">none</span>',
      i > 0 ? `<a href="${link({ version: selected.version, from: versions[i - 1].version, to: v.version })}">diff v${esc(versions[i - 1].version)} → v${esc(v.version)}</a>` : '',
    ]);
    const others = versions.filter((v) => v.version !== selected.version);
    const compare = others.length === 0 ? '' : `<p>Compare v${esc(selected.version)} with: `
      + others.map((v) => `<a href="${link({ version: selected.version, from: Math.min(v.version, selected.version), to: Math.max(v.version, selected.version) })}">v${esc(v.version)}</a>`).join(' · ') + '</p>';
    const topic = topicOf(ctx, subject);
    return `<p><a href="/schema-registry">← Schemas</a> · compatibility <b id="subject-compatibility">${levelHtml(c)}</b> · ${esc(versions.length)} versions`
      + (topic ? ` · topic <a href="${esc(pathFor('topics', topic, 'messages') + query({ format: 'schema' }))}">${esc(topic)}</a>` : '') + '</p>'
      + `<h2>Versions</h2>${table(['Version', 'Id', 'Type', 'References', 'Diff'], rows, { id: 'versions' })}`
      + `<h2 id="schema-title">Version ${esc(selected.version)} · id ${esc(selected.id)} · ${esc(selected.schemaType ?? 'AVRO')}</h2>`
      + `<pre id="schema-text" class="schema">${esc(prettySchema(selected))}</pre>${compare}${await diffSection(ctx, r, subject)}`;
  });
}

async function diffSection(ctx: HttpContext, r: SchemaRegistry, subject: string): Promise<string> {
  const from = versionParam(ctx, 'from');
  const to = versionParam(ctx, 'to');
  if (from === null && to === null) return '';
  if (from === null || to === null) throw new BadRequest(400, 'a diff needs both from and to');
  const a = await r.getVersion(subject, from);
  const b = await r.getVersion(subject, to);
  const lines = diffLines(prettySchema(a).split('\n'), prettySchema(b).split('\n'));
  const added = lines.filter((l) => l.op === '+').length;
  const removed = lines.filter((l) => l.op === '-').length;
  const shown = foldUnchanged(lines).map((l) => {
    if (l.op === '…') return `<span class="diff-fold">… ${esc(l.count)} unchanged line${l.count === 1 ? '' : 's'}</span>`;
    if (l.op === '+') return `<ins class="diff-add">+ ${esc(l.text)}</ins>`;
    if (l.op === '-') return `<del class="diff-del">- ${esc(l.text)}</del>`;
    return `<span class="diff-same">  ${esc(l.text)}</span>`;
  }).join('');
  const ids = a.id === b.id ? `both id ${esc(a.id)}` : `id ${esc(a.id)} → id ${esc(b.id)}`;
  return `<h2 id="diff-title">Diff v${esc(a.version)} → v${esc(b.version)}</h2>`
    + `<p id="diff-summary">${ids} · <span class="diff-count-add">+${esc(added)}</span> <span class="diff-count-del">−${esc(removed)}</span> lines${added + removed === 0 ? ' (the same text)' : ''}</p>`
    + `<pre id="schema-diff" class="diff">${shown}</pre>`;
}
