/**
 * Samsa's TypeScript loader for its tests, benchmarks and tools:
 *
 *   node --import ./tools/ts-loader/register.mjs FILE.ts
 *
 * Registers hooks.mjs (Node's module customization hooks) so that `.ts` files load as ES modules,
 * compiled by esbuild (type syntax removed, nothing bundled), and a relative `./x.js` import finds
 * `./x.ts` when there is no x.js, as TypeScript's NodeNext resolution writes them. It does what the
 * project needs of tsx and no more, for less: a process that imports the whole broker starts in
 * about 1.5 CPU-seconds instead of 2.9 (tools/run-tests.mjs starts a few hundred of them per run).
 * Compiled files are kept in a cache under the system's temporary directory, keyed by path and
 * content. Stack traces point into the .ts sources (inline source maps).
 */
import { register } from 'node:module';

process.setSourceMapsEnabled(true);
register('./hooks.mjs', import.meta.url);
