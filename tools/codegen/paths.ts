import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SPEC_DIR = join(ROOT, 'protocol-specs');
export const GENERATED_DIR = join(ROOT, 'src', 'protocol', 'generated');
/** The shared reference snapshot (a trunk commit between Kafka 3.9 and 4.0): errors, api keys, internal records. */
export const UPSTREAM_DIR = resolve(ROOT, '..', 'shared', 'kafka-protocol');
