/**
 * The console's page frame and HTML helpers. Every value that reaches a page goes through esc()
 * (text and attribute values alike); links are built with pathFor(), which percent-encodes each
 * segment. Pages have no external assets: the style sheet is inline and the one script
 * (/console/app.js, the live chart) is served by this listener; read-only pages work without it.
 */
import type { HttpContext } from '../context.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Escapes text for element content and quoted attribute values. */
export function esc(v: unknown): string {
  return String(v ?? '').replace(/[&<>"'`]/g, (c) => ESCAPES[c]);
}

/** A path from raw segments, each percent-encoded ('/topics/' + a name with '?' or '#' stays one segment). */
export function pathFor(...segments: (string | number)[]): string {
  return '/' + segments.map((s) => encodeURIComponent(String(s))).join('/');
}

/** A query string from pairs (values encoded), '' when none. */
export function query(params: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function table(headers: readonly string[], rows: readonly (readonly string[])[], opts: { id?: string; empty?: string } = {}): string {
  if (rows.length === 0) return `<p class="empty">${esc(opts.empty ?? 'none')}</p>`;
  const head = headers.map((h) => `<th>${esc(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n');
  return `<table${opts.id ? ` id="${esc(opts.id)}"` : ''}><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** A POST form with the anti-forgery token; `inner` is trusted HTML built with esc(). */
export function form(ctx: HttpContext, action: string, inner: string, opts: { id?: string; className?: string } = {}): string {
  return `<form method="post" action="${esc(action)}"${opts.id ? ` id="${esc(opts.id)}"` : ''}${opts.className ? ` class="${esc(opts.className)}"` : ''}>`
    + `<input type="hidden" name="csrf" value="${esc(ctx.csrf)}">${inner}</form>`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2530;background:#f5f6f8}
header{background:#1f2a37;color:#fff;padding:10px 20px;display:flex;gap:24px;align-items:center}
header .brand{font-weight:700;font-size:16px;letter-spacing:.5px}header nav a{color:#cfd8e3;text-decoration:none;margin-right:16px}
header nav a.on,header nav a:hover{color:#fff;text-decoration:underline}
main{padding:16px 20px;max-width:1300px}h1{font-size:20px;margin:4px 0 12px}h2{font-size:16px;margin:20px 0 8px}
table{border-collapse:collapse;background:#fff;width:100%;margin-bottom:8px}th,td{border:1px solid #dde2e8;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f5;font-weight:600}td.num,th.num{text-align:right}code,pre,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
pre{white-space:pre-wrap;word-break:break-all;margin:0}form{margin:6px 0}form.inline{display:inline}
input,select,textarea,button{font:inherit;padding:3px 6px}textarea{width:100%;max-width:640px}button{cursor:pointer}
.notice{background:#e7f6ea;border:1px solid #9fd3aa;padding:6px 10px;margin-bottom:10px}.error{background:#fdecea;border:1px solid #f3a6a0;padding:6px 10px;margin-bottom:10px}
.empty{color:#66707c;font-style:italic}.cards{display:flex;gap:12px;flex-wrap:wrap}.card{background:#fff;border:1px solid #dde2e8;padding:8px 14px;min-width:150px}
.card b{display:block;font-size:20px}.muted{color:#66707c}fieldset{border:1px solid #dde2e8;background:#fff;margin:8px 0;max-width:720px}
svg.chart{background:#fff;border:1px solid #dde2e8}.legend span{margin-right:14px}.k{color:#7a4d00}.danger{color:#a4161a}
pre.schema,pre.diff{background:#fff;border:1px solid #dde2e8;padding:6px 8px}pre.diff>*{display:block;text-decoration:none}
.diff-add{background:#e6ffec;color:#116329}.diff-del{background:#ffebe9;color:#82071e}.diff-fold{color:#66707c;font-style:italic}
`;

const NAV: readonly [string, string][] = [['/', 'Cluster'], ['/topics', 'Topics'], ['/groups', 'Consumer groups'], ['/share-groups', 'Share groups'], ['/schema-registry', 'Schemas']];

/** The whole page. `body` is trusted HTML (built with esc()); `title` is text. */
export function page(ctx: HttpContext, title: string, body: string, opts: { section?: string; script?: boolean } = {}): string {
  const section = opts.section ?? '/';
  const nav = NAV.map(([href, label]) => `<a href="${href}"${href === section ? ' class="on"' : ''}>${esc(label)}</a>`).join('');
  const notice = ctx.query.get('notice');
  const error = ctx.query.get('error');
  const flash = (notice ? `<div class="notice" role="status">${esc(notice)}</div>` : '') + (error ? `<div class="error" role="alert">${esc(error)}</div>` : '');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">`
    + `<title>${esc(title)} · Samsa</title><style>${STYLE}</style></head><body>`
    + `<header><span class="brand">Samsa</span><nav>${nav}</nav><span class="muted">node ${esc(ctx.broker.nodeId)}${ctx.user ? ` · ${esc(ctx.user)}` : ''}</span></header>`
    + `<main>${flash}<h1>${esc(title)}</h1>${body}</main>`
    + (opts.script ? '<script src="/console/app.js" defer></script>' : '')
    + `</body></html>`;
}
