/**
 * Fresh temporary directories for tests. Each call makes a new directory under the OS temp dir;
 * `cleanup()` removes it. Directories not cleaned up are removed when the process exits, unless
 * SAMSA_KEEP_TMP=1 (then their paths are printed, for post-mortems).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface TmpDir {
  /** Absolute path of the new, empty directory. */
  readonly path: string;
  /** Removes the directory and everything in it; safe to call more than once. */
  cleanup(): Promise<void>;
}

const live = new Set<string>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const dir of live) {
      if (process.env.SAMSA_KEEP_TMP === '1') {
        process.stderr.write(`kept temp dir ${dir}\n`);
      } else {
        try {
          rmSync(dir, { recursive: true, force: true });
        } catch {
          /* best effort */
        }
      }
    }
  });
}

/** Creates a fresh directory named `<tmp>/samsa-<prefix>-XXXXXX`. */
export function tmpDir(prefix = 'test'): TmpDir {
  hookExit();
  const safe = prefix.replace(/[^A-Za-z0-9._-]/g, '_');
  const dir = mkdtempSync(path.join(os.tmpdir(), `samsa-${safe}-`));
  live.add(dir);
  return {
    path: dir,
    async cleanup() {
      live.delete(dir);
      if (process.env.SAMSA_KEEP_TMP === '1') return;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
