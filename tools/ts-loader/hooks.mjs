/**
 * The hooks of Samsa's TypeScript loader (see register.mjs). They run on Node's loader thread:
 * - resolve: a relative or absolute specifier ending in `.js` whose file does not exist resolves
 *   to the `.ts` beside it; `.ts` URLs are ES modules (the package is "type": "module").
 * - load: a `.ts` file is compiled by esbuild's transform (the compiler options of tsconfig.json
 *   that change emitted code: target ES2022, so class fields are defined as TypeScript defines
 *   them) with an inline source map; the output is cached on disk by sha1(url + source), written
 *   to a temporary name and renamed, so parallel processes share it safely.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CACHE = path.join(os.tmpdir(), `samsa-ts-cache-${process.getuid?.() ?? 'user'}`);
mkdirSync(CACHE, { recursive: true });
const TSCONFIG_RAW = { compilerOptions: { target: 'ES2022', useDefineForClassFields: true } };
let esbuild = null;

function isPathLike(specifier) {
  return specifier.startsWith('./') || specifier.startsWith('../') || specifier.startsWith('/') || specifier.startsWith('file:');
}

export async function resolve(specifier, context, nextResolve) {
  if (isPathLike(specifier) && (specifier.endsWith('.js') || specifier.endsWith('.ts'))) {
    const url = new URL(specifier, context.parentURL ?? `file://${process.cwd()}/`);
    if (url.protocol === 'file:') {
      if (url.pathname.endsWith('.ts')) return { url: url.href, format: 'module', shortCircuit: true };
      const file = fileURLToPath(url);
      if (!existsSync(file)) {
        const ts = `${file.slice(0, -3)}.ts`;
        if (existsSync(ts)) return { url: `${url.href.slice(0, -3)}.ts`, format: 'module', shortCircuit: true };
      }
    }
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const source = readFileSync(file, 'utf8');
  const cached = path.join(CACHE, `${createHash('sha1').update(url).update('\0').update(source).digest('hex')}.js`);
  let code;
  try {
    code = readFileSync(cached, 'utf8');
  } catch {
    esbuild ??= await import('esbuild');
    code = esbuild.transformSync(source, {
      loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcefile: file, tsconfigRaw: TSCONFIG_RAW,
    }).code;
    const tmp = `${cached}.${process.pid}.tmp`;
    writeFileSync(tmp, code);
    renameSync(tmp, cached);
  }
  return { format: 'module', source: code, shortCircuit: true };
}
