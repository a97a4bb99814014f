/**
 * Benches made of timed phases repeated over reps: run the reps (printing each), then one table
 * of medians per phase (rate, p50, p99, broker CPU per 1,000 units). Used by the HTTP benches.
 */
import { median } from './proc.js';

export interface Phase {
  name: string;
  rate: number;
  p50: number;
  p99: number;
  cpuMsPer1k: number;
}

export interface Rep<P extends Phase> {
  phases: P[];
  rss: number;
}

/** Runs `reps` reps of `rep`, printing a line for each. */
export async function runReps<P extends Phase>(reps: number, rep: () => Promise<Rep<P>>): Promise<Rep<P>[]> {
  const out: Rep<P>[] = [];
  for (let r = 0; r < reps; r++) {
    const res = await rep();
    out.push(res);
    console.log(`rep ${r + 1}: ${res.phases.map((p) => `${p.name} ${p.rate.toFixed(0)}/s`).join(' · ')} · RSS ${res.rss.toFixed(0)} MiB`);
  }
  return out;
}

/** The median of `f` over the reps, for phase `i`. */
export function phaseMedian<P extends Phase>(reps: Rep<P>[], i: number, f: (p: P) => number): number {
  return median(reps.map((r) => f(r.phases[i]!)));
}

/** The table of medians, one row a phase; `unit` names what the rate and the CPU column count. */
export function printPhaseTable<P extends Phase>(reps: Rep<P>[], firstColumn: string, unit: string): void {
  console.log(`| ${firstColumn} | ${unit}/s | p50 ms | p99 ms | broker CPU-ms / 1,000 ${unit} |`);
  console.log('|---|---|---|---|---|');
  for (let i = 0; i < reps[0]!.phases.length; i++) {
    const m = (f: (p: P) => number) => phaseMedian(reps, i, f);
    console.log(`| ${reps[0]!.phases[i]!.name} | ${m((p) => p.rate).toFixed(0)} | ${m((p) => p.p50).toFixed(2)} | ${m((p) => p.p99).toFixed(2)} | ${m((p) => p.cpuMsPer1k).toFixed(0)} |`);
  }
}
