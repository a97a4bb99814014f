/**
 * `/topics` (list, create) and `/topics/<name>` (partitions with leader, replicas, ISR, offsets
 * and sizes; effective configs; change the overrides; delete). Changes call the broker's own
 * createTopic / deleteTopic / setTopicConfigs, the paths CreateTopics, DeleteTopics and
 * IncrementalAlterConfigs take.
 */
import type { HttpContext } from '../context.js';
import { BadRequest } from '../context.js';
import { redirect, sendHtml } from '../respond.js';
import { esc, form, formatBytes, page, pathFor, query, table } from './layout.js';
import { resolveTopicConfig } from '../../config.js';
import { validateTopicConfigs } from '../../broker/topic-configs.js';

function partitionRows(ctx: HttpContext, name: string) {
  const b = ctx.broker;
  const info = b.metadataCache.topic(name);
  if (!info) return [];
  return b.metadataCache.partitionsOf(info.topicId).map((s) => {
    const log = b.getLog(name, s.partition);
    return { state: s, log };
  });
}

export function topicsPage(ctx: HttpContext): void {
  const b = ctx.broker;
  const names = [...b.metadataCache.topics.keys()].sort();
  const showInternal = ctx.query.get('internal') === '1';
  const rows = names.filter((n) => showInternal || !b.metadataCache.topic(n)!.isInternal).map((n) => {
    const info = b.metadataCache.topic(n)!;
    let size = 0, records = 0, local = 0;
    for (const { log } of partitionRows(ctx, n)) {
      if (!log) continue;
      local++;
      size += log.sizeBytes;
      records += log.logEndOffset - log.logStartOffset;
    }
    return [
      `<a href="${esc(pathFor('topics', n))}">${esc(n)}</a>${info.isInternal ? ' <span class="muted">internal</span>' : ''}`,
      `<span class="num">${esc(info.partitions)}</span>`, esc(info.replicationFactor),
      esc(local === 0 ? '—' : formatBytes(size)), esc(local === 0 ? '—' : records),
      esc(Object.keys(info.configs).length),
    ];
  });
  const create = form(ctx, '/topics', `<fieldset><legend>Create a topic</legend>`
    + `<label>Name <input name="name" id="create-name" required maxlength="249" pattern="[a-zA-Z0-9._\\x2d]+"></label> `
    + `<label>Partitions <input name="partitions" id="create-partitions" type="number" min="1" value="${esc(b.config.numPartitions)}" style="width:6em"></label> `
    + `<label>Replication factor <input name="replicationFactor" type="number" min="-1" value="-1" style="width:5em" title="-1: default.replication.factor"></label><br>`
    + `<label>Configs (one <code>name=value</code> a line)<br><textarea name="configs" rows="3" placeholder="cleanup.policy=compact"></textarea></label><br>`
    + `<button type="submit" id="create-submit">Create</button></fieldset>`, { id: 'create-topic' });
  const body = `<p><a href="/topics${showInternal ? '' : '?internal=1'}">${showInternal ? 'Hide' : 'Show'} internal topics</a></p>`
    + table(['Topic', 'Partitions', 'Replication', 'Size here', 'Records here', 'Overrides'], rows, { id: 'topics', empty: 'No topics yet.' })
    + create;
  sendHtml(ctx.res, 200, page(ctx, 'Topics', body, { section: '/topics' }));
}

function parseConfigLines(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new BadRequest(400, `not name=value: ${line}`);
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

export async function createTopicPost(ctx: HttpContext): Promise<void> {
  const f = ctx.form!;
  const name = (f.get('name') ?? '').trim();
  try {
    const configs = parseConfigLines(f.get('configs') ?? '');
    await ctx.broker.createTopic({
      name, numPartitions: Number(f.get('partitions') || -1), replicationFactor: Number(f.get('replicationFactor') || -1), configs,
    });
  } catch (err) {
    return redirect(ctx.res, `/topics${query({ error: `Creating ${name}: ${(err as Error).message}` })}`);
  }
  redirect(ctx.res, `${pathFor('topics', name)}${query({ notice: `Topic ${name} created.` })}`);
}

export function topicPage(ctx: HttpContext, name: string): void {
  const b = ctx.broker;
  const info = b.metadataCache.topic(name);
  if (!info) throw new BadRequest(404, `no topic ${name}`);
  // Tiered storage (docs/tiered-storage.md): where the local log starts, and what the remote tier holds.
  const tiered = b.tiered !== undefined && info.configs['remote.storage.enable'] === 'true';
  const remoteCells = (partition: number, log: { localLogStartOffset: number } | undefined): string[] => {
    if (!tiered) return [];
    const r = b.tiered!.remoteExtent({ topic: name, topicId: info.topicId, partition });
    return [esc(log ? log.localLogStartOffset : '—'), r.startOffset < 0 ? 'none' : `${esc(r.startOffset)}–${esc(r.endOffset)} (${esc(formatBytes(r.sizeBytes))})`];
  };
  const rows = partitionRows(ctx, name).map(({ state: s, log }) => [
    `<span class="num">${esc(s.partition)}</span>`,
    s.leader < 0 ? '<span class="danger">none</span>' : esc(s.leader),
    esc(s.replicas.join(', ')),
    s.isr.length < s.replicas.length ? `<span class="danger">${esc(s.isr.join(', '))}</span>` : esc(s.isr.join(', ')),
    esc(log ? log.logStartOffset : '—'), ...remoteCells(s.partition, log), esc(log ? log.logEndOffset : '—'), esc(log ? log.highWatermark : '—'),
    esc(log ? formatBytes(log.sizeBytes) : '—'), esc(log ? log.numberOfSegments : '—'),
    `<a href="${esc(pathFor('topics', name, 'messages') + query({ partition: s.partition }))}">browse</a>`,
  ]);
  const resolved = resolveTopicConfig(b.rawConfig, info.configs);
  const configRows = resolved.entries.map((e) => [
    `<code>${esc(e.name)}</code>`, `<code>${esc(e.value ?? 'null')}</code>`,
    e.configSource === 1 ? '<b>override</b>' : e.configSource === 4 ? 'broker setting' : 'default',
  ]);
  const overrides = Object.entries(info.configs).map(([k, v]) => `${k}=${v}`).join('\n');
  const configForm = form(ctx, pathFor('topics', name, 'config'), `<fieldset><legend>Change config overrides</legend>`
    + `<label>Overrides (one <code>name=value</code> a line; a line removed goes back to the default)<br>`
    + `<textarea name="configs" id="config-overrides" rows="4">${esc(overrides)}</textarea></label><br>`
    + `<button type="submit" id="config-submit">Save overrides</button></fieldset>`, { id: 'topic-config' });
  const deleteForm = info.isInternal ? '' : form(ctx, pathFor('topics', name, 'delete'), `<fieldset><legend class="danger">Delete the topic</legend>`
    + `<label>Type the topic's name to confirm <input name="confirm" id="delete-confirm" autocomplete="off"></label> `
    + `<button type="submit" id="delete-submit" class="danger">Delete ${esc(name)}</button></fieldset>`, { id: 'topic-delete' });
  const body = `<p>Id <code>${esc(info.topicId)}</code> · ${esc(info.partitions)} partitions · replication factor ${esc(info.replicationFactor)}`
    + `${info.isInternal ? ' · internal' : ''} · <a href="${esc(pathFor('topics', name, 'messages'))}">Browse messages</a></p>`
    + `<h2>Partitions</h2>${table(['Partition', 'Leader', 'Replicas', 'ISR', 'Log start', ...(tiered ? ['Local start', 'Remote tier'] : []), 'Log end', 'High watermark', tiered ? 'Local size' : 'Size', tiered ? 'Local segments' : 'Segments', ''], rows, { id: 'partitions' })}`
    + `<p class="muted">Offsets and sizes are shown for the replicas on this broker.</p>`
    + `<h2>Configs</h2>${table(['Name', 'Value', 'Source'], configRows, { id: 'configs' })}${configForm}${deleteForm}`;
  sendHtml(ctx.res, 200, page(ctx, `Topic ${name}`, body, { section: '/topics' }));
}

export async function topicConfigPost(ctx: HttpContext, name: string): Promise<void> {
  try {
    const configs = validateTopicConfigs(parseConfigLines(ctx.form!.get('configs') ?? ''));
    await ctx.broker.setTopicConfigs(name, configs);
  } catch (err) {
    return redirect(ctx.res, `${pathFor('topics', name)}${query({ error: `Changing the configs: ${(err as Error).message}` })}`);
  }
  redirect(ctx.res, `${pathFor('topics', name)}${query({ notice: 'Config overrides saved.' })}`);
}

export async function topicDeletePost(ctx: HttpContext, name: string): Promise<void> {
  if (ctx.form!.get('confirm') !== name) {
    return redirect(ctx.res, `${pathFor('topics', name)}${query({ error: 'Not deleted: the confirmation did not match the topic name.' })}`);
  }
  try {
    await ctx.broker.deleteTopic(name);
  } catch (err) {
    return redirect(ctx.res, `${pathFor('topics', name)}${query({ error: `Deleting: ${(err as Error).message}` })}`);
  }
  redirect(ctx.res, `/topics${query({ notice: `Topic ${name} deleted.` })}`);
}
