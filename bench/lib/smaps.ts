/**
 * RSS of a process by mapping (from /proc/PID/smaps): the main malloc heap ("[heap]"), other
 * anonymous mappings grouped by size class (V8's pages, malloc's thread arenas), and files.
 */
import { readFileSync } from 'node:fs';

export interface SmapsSummary {
  [group: string]: number;
}

/** KiB of RSS per group: [heap], [stack], anon <size class>, file:<basename>. */
export function smapsSummary(pid: number): SmapsSummary {
  const out: SmapsSummary = {};
  let group = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const size = (parseInt(head[2], 16) - parseInt(head[1], 16)) / 1024;
      const name = head[3];
      if (name.startsWith('[')) group = name;
      else if (name) group = `file:${name.slice(name.lastIndexOf('/') + 1)}`;
      else group = size >= 65536 ? 'anon >= 64 MiB' : size >= 1024 ? 'anon 1-64 MiB' : 'anon < 1 MiB';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[group] = (out[group] ?? 0) + Number(rss[1]);
  }
  return out;
}
