// docs/testing-your-code.md ("Testing your Kafka code with Samsa") must show readme-example.test.ts unchanged.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

test('the documented example is the tested file', () => {
  const readme = readFileSync(join(process.cwd(), 'docs', 'testing-your-code.md'), 'utf8');
  const start = readme.indexOf('## Testing your Kafka code with Samsa');
  assert.ok(start >= 0, 'the page has the section');
  const doc = readme.slice(start);
  const file = readFileSync(join(process.cwd(), 'test', 'testing', 'readme-example.test.ts'), 'utf8');
  const block = /```ts\n([\s\S]*?)\n```/.exec(doc)?.[1];
  assert.ok(block, 'the doc has a ts code block');
  // The file starts with two comment lines; the doc imports the package instead of the source.
  const expected = file.split('\n').slice(2).join('\n').replace("'../../src/index.js'", "'samsa'").trim();
  assert.fixture(block!.trim(), expected);
});

test.run();
