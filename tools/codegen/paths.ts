import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SPEC_DIR = join(ROOT, 'protocol-specs');
export const GENERATED_DIR = join(ROOT, 'src', 'protocol', 'generated');
export const UPSTREAM_DIR = resolve(ROOT, '..', 'shared', 'kafka-protocol');

const UPSTREAM_SUBDIRS = ['message', 'internal/group-coordinator', 'internal/transaction-coordinator', 'internal/share-coordinator'];

/** Where the upstream schema of a message lives, or undefined. */
export function upstreamPathFor(name: string): string | undefined {
  for (const sub of UPSTREAM_SUBDIRS) {
    const p = join(UPSTREAM_DIR, sub, `${name}.json`);
    if (existsSync(p)) return p;
  }
  return undefined;
}
