/**
 * A line diff for the schemas page: the longest common subsequence of two texts' lines (after
 * their common first and last lines are set aside), shown as kept, removed and added lines, with
 * long runs of kept lines folded to a count.
 */

export interface DiffLine {
  /** ' ' kept, '-' only in the old text, '+' only in the new one. */
  op: ' ' | '-' | '+';
  text: string;
}

/** Past this many table cells (old × new lines that differ) the middle is shown as replaced wholesale. */
const MAX_CELLS = 4_000_000;

export function diffLines(before: readonly string[], after: readonly string[]): DiffLine[] {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const a = before.slice(head, before.length - tail);
  const b = after.slice(head, after.length - tail);
  const out: DiffLine[] = before.slice(0, head).map((text) => ({ op: ' ', text }));
  if (a.length * b.length > MAX_CELLS) {
    for (const text of a) out.push({ op: '-', text });
    for (const text of b) out.push({ op: '+', text });
  } else {
    // lcs[i * w + j]: the length of the longest common subsequence of a[i..] and b[j..].
    const w = b.length + 1;
    const lcs = new Uint32Array((a.length + 1) * w);
    for (let i = a.length - 1; i >= 0; i--) {
      for (let j = b.length - 1; j >= 0; j--) {
        lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      if (a[i] === b[j]) {
        out.push({ op: ' ', text: a[i] });
        i++;
        j++;
      } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
        out.push({ op: '-', text: a[i++] });
      } else {
        out.push({ op: '+', text: b[j++] });
      }
    }
    while (i < a.length) out.push({ op: '-', text: a[i++] });
    while (j < b.length) out.push({ op: '+', text: b[j++] });
  }
  for (const text of before.slice(before.length - tail)) out.push({ op: ' ', text });
  return out;
}

/** A run of kept lines left out of the display. */
export interface Folded {
  op: '…';
  count: number;
}

/**
 * The diff with every run of kept lines further than `context` lines from a change folded into
 * one entry (a run shorter than what it would save stays whole).
 */
export function foldUnchanged(lines: readonly DiffLine[], context = 3): (DiffLine | Folded)[] {
  const out: (DiffLine | Folded)[] = [];
  let k = 0;
  while (k < lines.length) {
    if (lines[k].op !== ' ') {
      out.push(lines[k++]);
      continue;
    }
    let end = k;
    while (end < lines.length && lines[end].op === ' ') end++;
    const keepBefore = k === 0 ? 0 : context;
    const keepAfter = end === lines.length ? 0 : context;
    if (end - k > keepBefore + keepAfter + 1) {
      out.push(...lines.slice(k, k + keepBefore), { op: '…', count: end - k - keepBefore - keepAfter }, ...lines.slice(end - keepAfter, end));
    } else {
      out.push(...lines.slice(k, end));
    }
    k = end;
  }
  return out;
}
