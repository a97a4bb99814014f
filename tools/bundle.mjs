#!/usr/bin/env node
/**
 * esbuild's bundle of Samsa's entry points: one ES module per entry point, shared code split into
 * chunks/, the native and optional packages left to node_modules (they load through
 * createRequire). `npm run build` makes dist/samsa.js with it (after tsc's dist/src/, where the
 * bundle finds the cleaner's worker); tools/run-tests.mjs makes the test run's broker and CLI.
 *
 *   node tools/bundle.mjs [OUTDIR]        # default dist: OUTDIR/samsa.js
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXTERNAL = ['etcd3', 'sse4_crc32', 'zstd-napi', 'snappy', 'lz4-napi', '@aws-sdk/client-s3'];

/**
 * Bundles `entries` ({ name: source file relative to the repository }) into `outdir` as
 * `outdir/<name>.js`, replacing its chunks/.
 */
export async function bundle(outdir, entries) {
  rmSync(path.join(outdir, 'chunks'), { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: Object.entries(entries).map(([out, file]) => ({ in: file, out })),
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    chunkNames: 'chunks/[name]-[hash]',
    banner: { js: "import { createRequire as __samsaRequire } from 'node:module'; const require = __samsaRequire(import.meta.url);" },
    external: EXTERNAL,
    logLevel: 'warning',
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundle(path.resolve(process.argv[2] ?? path.join(ROOT, 'dist')), { samsa: 'src/cli/samsa.ts' });
}
