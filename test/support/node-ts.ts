/**
 * How tests start Samsa's own code in a child process.
 *
 * - Any .ts file runs under the project's TypeScript loader (tools/ts-loader/register.mjs).
 * - The broker (src/main.ts) and the CLI (src/cli/samsa.ts) run from the test run's bundle when
 *   tools/run-tests.mjs made one (SAMSA_TEST_BUNDLE: esbuild's bundle of those entry points, as
 *   `npm run build` makes dist/samsa.js): a broker then starts in about 0.5 CPU-seconds instead of
 *   1.5 from source, and the cluster tests start a few hundred. Without it (a test file run on its
 *   own, `node --import ./tools/ts-loader/register.mjs FILE`) they run from source.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = process.cwd();

/** The loader, as an `--import` argument. */
export const TS_LOADER = pathToFileURL(join(ROOT, 'tools', 'ts-loader', 'register.mjs')).href;

/** Node arguments that run `file` (.ts or .js). */
export function nodeArgs(file: string): string[] {
  return file.endsWith('.ts') ? ['--import', TS_LOADER, file] : [file];
}

function bundled(name: string): string | null {
  const dir = process.env.SAMSA_TEST_BUNDLE;
  const file = dir ? join(dir, name) : null;
  return file && existsSync(file) ? file : null;
}

/** The broker's entry point: the run's bundle, or src/main.ts. */
export function brokerMain(): string {
  return bundled('main.js') ?? join(ROOT, 'src', 'main.ts');
}

/** The samsa command: the run's bundle, or src/cli/samsa.ts. */
export function samsaMain(): string {
  return bundled('samsa.js') ?? join(ROOT, 'src', 'cli', 'samsa.ts');
}
