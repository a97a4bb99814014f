/**
 * A strict parser of the Prometheus text exposition format 0.0.4, written from the format's
 * description (https://prometheus.io/docs/instrumenting/exposition_formats/), for the /metrics
 * tests. Not a test file.
 *
 * Refuses: a sample before its family's TYPE, a family declared twice or split (samples of one
 * family after another family began), a sample name that is not the family name (or _sum/_count
 * for summaries, _bucket/_sum/_count for histograms), a duplicate series, bad metric or label
 * names, label values with escapes other than \\ \" \n, values that are not floats, a missing
 * final newline.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: string;
  help: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'summary', 'histogram', 'untyped']);

function parseValue(s: string, line: number): number {
  if (s === 'NaN') return NaN;
  if (s === '+Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) throw new Error(`line ${line}: bad value ${JSON.stringify(s)}`);
  return Number(s);
}

function parseLabels(s: string, line: number): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 0;
  if (s[i] !== '{') return { labels, rest: s };
  i++;
  while (true) {
    if (s[i] === '}') { i++; break; }
    const eq = s.indexOf('=', i);
    if (eq < 0) throw new Error(`line ${line}: label without =`);
    const name = s.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`line ${line}: bad label name ${JSON.stringify(name)}`);
    if (name in labels) throw new Error(`line ${line}: label ${name} twice`);
    i = eq + 1;
    if (s[i] !== '"') throw new Error(`line ${line}: label value not quoted`);
    i++;
    let v = '';
    while (true) {
      const c = s[i];
      if (c === undefined) throw new Error(`line ${line}: unterminated label value`);
      if (c === '"') { i++; break; }
      if (c === '\\') {
        const n = s[i + 1];
        if (n === '\\') v += '\\';
        else if (n === '"') v += '"';
        else if (n === 'n') v += '\n';
        else throw new Error(`line ${line}: bad escape \\${n}`);
        i += 2;
        continue;
      }
      v += c;
      i++;
    }
    labels[name] = v;
    if (s[i] === ',') { i++; continue; }
    if (s[i] === '}') { i++; break; }
    throw new Error(`line ${line}: expected , or } after label ${name}`);
  }
  return { labels, rest: s.slice(i) };
}

export function parsePrometheusText(text: string): Map<string, Family> {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('exposition does not end with a newline');
  const families = new Map<string, Family>();
  const finished = new Set<string>();
  const series = new Set<string>();
  let current: Family | null = null;
  let pendingHelp: { name: string; help: string } | null = null;
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((raw, idx) => {
    const line = idx + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
      if (!m) return;
      const [, kind, name, rest] = m;
      if (!METRIC_NAME.test(name)) throw new Error(`line ${line}: bad metric name ${name}`);
      if (kind === 'HELP') {
        pendingHelp = { name, help: rest };
        return;
      }
      if (!TYPES.has(rest)) throw new Error(`line ${line}: bad type ${rest}`);
      if (families.has(name)) throw new Error(`line ${line}: family ${name} declared twice`);
      if (current) finished.add(current.name);
      const help = pendingHelp && (pendingHelp as { name: string }).name === name ? (pendingHelp as { help: string }).help : '';
      current = { name, type: rest, help, samples: [] };
      families.set(name, current);
      pendingHelp = null;
      return;
    }
    const nm = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(.*)$/.exec(raw);
    if (!nm) throw new Error(`line ${line}: not a sample: ${raw}`);
    const name = nm[1];
    const { labels, rest } = parseLabels(nm[2], line);
    const parts = rest.trim().split(/\s+/);
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2) throw new Error(`line ${line}: expected value [timestamp]: ${raw}`);
    const value = parseValue(parts[0], line);
    const fam: Family | null = current;
    if (!fam) throw new Error(`line ${line}: sample ${name} before any TYPE`);
    const allowed = [fam.name];
    if (fam.type === 'summary') allowed.push(`${fam.name}_sum`, `${fam.name}_count`);
    if (fam.type === 'histogram') allowed.push(`${fam.name}_bucket`, `${fam.name}_sum`, `${fam.name}_count`);
    if (!allowed.includes(name)) throw new Error(`line ${line}: sample ${name} outside its family (current family ${fam.name}${finished.has(name) ? '; that family ended earlier' : ''})`);
    if (fam.type === 'summary' && name === fam.name && !('quantile' in labels)) throw new Error(`line ${line}: summary sample without quantile`);
    const key = name + JSON.stringify(Object.entries(labels).sort());
    if (series.has(key)) throw new Error(`line ${line}: duplicate series ${key}`);
    series.add(key);
    fam.samples.push({ name, labels, value });
  });
  return families;
}

/** The value of the one sample of `name` whose labels are exactly `labels`; throws when absent. */
export function value(fams: Map<string, Family>, family: string, labels: Record<string, string> = {}, sampleName = family): number {
  const f = fams.get(family);
  if (!f) throw new Error(`no family ${family}`);
  const want = JSON.stringify(Object.entries(labels).sort());
  const s = f.samples.find((x) => x.name === sampleName && JSON.stringify(Object.entries(x.labels).sort()) === want);
  if (!s) throw new Error(`no sample ${sampleName}${want} in ${family}: ${JSON.stringify(f.samples.map((x) => x.labels)).slice(0, 400)}`);
  return s.value;
}

/** Like value(), 0 when the series does not exist (yet). */
export function valueOr0(fams: Map<string, Family>, family: string, labels: Record<string, string> = {}, sampleName = family): number {
  try {
    return value(fams, family, labels, sampleName);
  } catch {
    return 0;
  }
}
