/**
 * Kafka's text checkpoint format (`CheckpointFile`): a version line, a count line, then one entry
 * per line. Written atomically (tmp file, fsync, rename).
 *
 *   0
 *   2
 *   <entry>
 *   <entry>
 */
import type { Fs } from './fs.js';

/** The entries of a checkpoint file; null when the file does not exist. Throws on a damaged one. */
export async function readCheckpoint(fs: Fs, filePath: string): Promise<string[][] | null> {
  const bytes = await readFileIfExists(fs, filePath);
  if (bytes === null) return null;
  const text = bytes.toString('utf8');
  const lines = text.split('\n');
  if (lines[0]?.trim() !== '0') throw new Error(`${filePath}: unsupported checkpoint version ${JSON.stringify(lines[0])}`);
  const count = Number(lines[1]);
  if (!Number.isInteger(count) || count < 0) throw new Error(`${filePath}: bad entry count ${JSON.stringify(lines[1])}`);
  const entries: string[][] = [];
  for (let i = 0; i < count; i++) {
    const line = lines[2 + i];
    if (line === undefined || line.trim() === '') throw new Error(`${filePath}: expected ${count} entries, found ${i}`);
    entries.push(line.trim().split(/\s+/));
  }
  return entries;
}

export async function writeCheckpoint(fs: Fs, filePath: string, entries: (string | number)[][]): Promise<void> {
  await fs.writeFileAtomic(filePath, checkpointBytes(entries));
}

/** A checkpoint file's bytes. */
export function checkpointBytes(entries: (string | number)[][]): Buffer {
  const text = ['0', String(entries.length), ...entries.map((e) => e.join(' '))].join('\n') + '\n';
  return Buffer.from(text, 'utf8');
}

/** One read (no separate existence check: a start-up reads thousands of these). Null when missing. */
export async function readFileIfExists(fs: Fs, filePath: string): Promise<Buffer | null> {
  try {
    return await fs.readFile(filePath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
