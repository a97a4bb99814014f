/** Kafka schema version ranges: "0+", "3-5", "7", "none". */
export class VersionRange {
  constructor(readonly min: number, readonly max: number) {}

  isEmpty(): boolean {
    return this.max < this.min;
  }

  contains(v: number): boolean {
    return v >= this.min && v <= this.max;
  }
}

const OPEN = 0x7fff;

export function parseVersions(s: string): VersionRange {
  if (s === 'none') return new VersionRange(0, -1);
  let m = /^(\d+)\+$/.exec(s);
  if (m) return new VersionRange(Number(m[1]), OPEN);
  m = /^(\d+)-(\d+)$/.exec(s);
  if (m) return new VersionRange(Number(m[1]), Number(m[2]));
  m = /^(\d+)$/.exec(s);
  if (m) return new VersionRange(Number(m[1]), Number(m[1]));
  throw new Error(`bad version range ${s}`);
}

/**
 * A JS condition on variable `v` that is true for versions in `r`, simplified knowing that v is
 * always inside `valid`: 'true' / 'false' when the answer does not depend on v.
 */
export function versionCond(r: VersionRange, valid: VersionRange, v: string): string {
  const lo = Math.max(r.min, valid.min);
  const hi = Math.min(r.max, valid.max);
  if (r.isEmpty() || lo > hi) return 'false';
  const needLo = lo > valid.min;
  const needHi = hi < valid.max;
  if (!needLo && !needHi) return 'true';
  if (needLo && needHi) return lo === hi ? `${v} === ${lo}` : `${v} >= ${lo} && ${v} <= ${hi}`;
  return needLo ? `${v} >= ${lo}` : `${v} <= ${hi}`;
}
