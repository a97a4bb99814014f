/**
 * The native addons build on this machine kind (node-gyp against the installed Node headers,
 * see .ci/run): under CI a JavaScript fallback for CRC-32C or a missing zstd binding is a failure,
 * since either would silently cost produce and fetch throughput. Outside CI it is reported only.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { crc32cImplementation } from '../../../src/protocol/records/crc32c.js';
import { compressSync, decompressSync } from '../../../src/protocol/records/compression.js';
import { IN_CI } from '../../support/kafka.js';

const require = createRequire(import.meta.url);

function loads(name: string): string | null {
  try {
    require(name);
    return null;
  } catch (e) {
    return (e as Error).message.split('\n')[0];
  }
}

test('sse4_crc32 is the CRC-32C implementation, and zstd-napi loads', () => {
  const problems: string[] = [];
  if (crc32cImplementation !== 'sse4_crc32') problems.push(`CRC-32C runs in JavaScript (sse4_crc32: ${loads('sse4_crc32') ?? 'loads, but was not used'})`);
  const zstd = loads('zstd-napi');
  if (zstd) problems.push(`zstd-napi does not load: ${zstd}`);
  if (!IN_CI && problems.length) {
    console.log(`native addons: ${problems.join('; ')} (a failure under CI)`);
    return;
  }
  assert.equal(problems, []);
  const data = Buffer.from('samsa '.repeat(1000));
  assert.equal(decompressSync('zstd', compressSync('zstd', data)), data);
});

test.run();
