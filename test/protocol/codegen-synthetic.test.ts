/**
 * Generator paths that no current protocol-specs message uses: nullable structs (int8 marker),
 * non-nullable `records`, tagged nullable structs, tagged fields without `versions`, hex / int
 * extreme defaults, field-level flexibleVersions "none", a message without flexible versions.
 *
 * A copy of tools/codegen runs in a temporary directory against synthetic specs (the real
 * generator code, unmodified); the generated module is imported and checked against the
 * independent oracle of spec-oracle.ts and against hand-written bytes.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../../tools/codegen/paths.js';
import { Ctx, Oracle, Sampler, kebab, range, type Mode, type Spec } from './spec-oracle.js';

const SYNTH: Spec[] = [
  {
    type: 'data', name: 'SynthData', validVersions: '0-4', flexibleVersions: '2+',
    fields: [
      { name: 'Id', type: 'int32', versions: '0+' },
      {
        name: 'MaybeInner', type: 'Inner', versions: '0+', nullableVersions: '1+',
        fields: [
          { name: 'A', type: 'int32', versions: '0+' },
          { name: 'B', type: 'string', versions: '0+', nullableVersions: '0+' },
          { name: 'C', type: 'int64', versions: '3+', default: '-1' },
        ],
      },
      { name: 'Recs', type: 'records', versions: '0+', nullableVersions: '0+' },
      { name: 'RecsNotNull', type: 'records', versions: '1+' },
      { name: 'HexDefault', type: 'int32', versions: '4+', default: '0x7fffffff' },
      { name: 'MinDefault', type: 'int32', versions: '4+', default: '-2147483648' },
      { name: 'Int64Max', type: 'int64', versions: '4+', default: '0x7fffffffffffffff' },
      { name: 'Int16Neg', type: 'int16', versions: '4+', default: '-32768' },
      { name: 'ClassicString', type: 'string', versions: '0+', flexibleVersions: 'none' },
      { name: 'Strings', type: '[]string', versions: '0+', nullableVersions: '2+' },
      { name: 'Ids', type: '[]uuid', versions: '2+' },
      {
        name: 'TaggedInner', type: 'TaggedStruct', versions: '2+', taggedVersions: '2+', tag: 0, nullableVersions: '2+',
        fields: [{ name: 'X', type: 'int16', versions: '0+' }],
      },
      { name: 'TaggedNoVersions', type: 'int32', taggedVersions: '3+', tag: 1, default: '-1' },
      { name: 'TaggedString', type: 'string', versions: '2+', taggedVersions: '2+', tag: 5, nullableVersions: '2+', default: 'null' },
    ],
  },
  {
    type: 'data', name: 'SynthNoFlex', validVersions: '0-1', flexibleVersions: 'none',
    fields: [
      { name: 'Name', type: 'string', versions: '0+' },
      { name: 'Parts', type: '[]Part', versions: '0+', fields: [{ name: 'P', type: 'int32', versions: '0+' }] },
      { name: 'Opt', type: 'Part2', versions: '1+', nullableVersions: '1+', fields: [{ name: 'Q', type: 'int8', versions: '0+' }] },
    ],
  },
];

interface Generated {
  read: (r: any, v: number) => any;
  write: (w: any, v: number, m: any) => void;
}

let dir = '';
const mods = new Map<string, Generated>();
let ReaderCls: any;
let WriterCls: any;
let ProtocolErrorCls: any;

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'samsa-codegen-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  mkdirSync(join(dir, 'tools', 'codegen'), { recursive: true });
  for (const f of readdirSync(join(ROOT, 'tools', 'codegen'))) {
    if (f.endsWith('.ts')) copyFileSync(join(ROOT, 'tools', 'codegen', f), join(dir, 'tools', 'codegen', f));
  }
  mkdirSync(join(dir, 'protocol-specs', 'messages'), { recursive: true });
  for (const s of SYNTH) writeFileSync(join(dir, 'protocol-specs', 'messages', `${s.name}.json`), JSON.stringify(s, null, 2));
  writeFileSync(join(dir, 'protocol-specs', 'errors.json'), JSON.stringify([{ code: -1, name: 'UNKNOWN_SERVER_ERROR', retriable: false }, { code: 0, name: 'NONE', retriable: false }]));
  writeFileSync(join(dir, 'protocol-specs', 'apis.json'), JSON.stringify({ apis: [] }));
  mkdirSync(join(dir, 'src', 'protocol', 'generated', 'messages'), { recursive: true });
  copyFileSync(join(ROOT, 'src', 'errors.ts'), join(dir, 'src', 'errors.ts'));
  for (const f of ['reader.ts', 'writer.ts']) copyFileSync(join(ROOT, 'src', 'protocol', f), join(dir, 'src', 'protocol', f));
  const gen = (await import(pathToFileURL(join(dir, 'tools', 'codegen', 'main.ts')).href)) as { generateAll: () => Map<string, string> };
  for (const [rel, text] of gen.generateAll()) writeFileSync(join(dir, 'src', 'protocol', 'generated', rel), text);
  for (const s of SYNTH) {
    const m = await import(pathToFileURL(join(dir, 'src', 'protocol', 'generated', 'messages', `${kebab(s.name)}.ts`)).href);
    mods.set(s.name, { read: m[`read${s.name}`], write: m[`write${s.name}`] });
  }
  ReaderCls = (await import(pathToFileURL(join(dir, 'src', 'protocol', 'reader.ts')).href)).Reader;
  WriterCls = (await import(pathToFileURL(join(dir, 'src', 'protocol', 'writer.ts')).href)).Writer;
  ProtocolErrorCls = (await import(pathToFileURL(join(dir, 'src', 'errors.ts')).href)).ProtocolError;
});

test.after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function encode(name: string, v: number, m: unknown): Buffer {
  const w = new WriterCls();
  mods.get(name)!.write(w, v, m);
  return w.toBuffer();
}

function decode(name: string, v: number, b: Buffer): { m: any; left: number } {
  const r = new ReaderCls(b);
  const m = mods.get(name)!.read(r, v);
  return { m, left: r.remaining };
}

test('synthetic specs: generated bytes == oracle bytes and decode == sample, every version and mode', () => {
  const failures: string[] = [];
  for (const spec of SYNTH) {
    const ctx = new Ctx(spec);
    const [lo, hi] = range(spec.validVersions);
    for (let v = lo; v <= hi; v++) {
      for (const mode of ['full', 'nulls', 'defaults'] as Mode[]) {
        const label = `${spec.name} v${v} ${mode}`;
        const sample = new Sampler(ctx, mode).struct(spec.fields, v);
        try {
          const got = encode(spec.name, v, sample);
          const ow = new WriterCls();
          new Oracle(ctx).struct(ow, spec.fields, v, sample);
          const want: Buffer = ow.toBuffer();
          if (!got.equals(want)) {
            failures.push(`${label}: generated ${got.toString('hex')} oracle ${want.toString('hex')}`);
            continue;
          }
          const { m, left } = decode(spec.name, v, got);
          if (left !== 0) failures.push(`${label}: ${left} bytes left`);
          assert.equal(m, sample, label);
        } catch (e) {
          failures.push(`${label}: ${(e as Error).message}`);
        }
      }
    }
  }
  assert.equal(failures, [], failures.join('\n'));
});

test('nullable struct: int8 -1 for null, 1 then the struct; not nullable before nullableVersions', () => {
  const base = {
    id: 1, recs: null, recsNotNull: Buffer.alloc(0), hexDefault: 0x7fffffff, minDefault: -2147483648, int64Max: 0x7fffffffffffffffn,
    int16Neg: -32768, classicString: '', strings: [], ids: [], taggedInner: null, taggedNoVersions: -1, taggedString: null,
  };
  // v1 (not flexible): null struct is the single byte 0xff
  const nullV1 = encode('SynthData', 1, { ...base, maybeInner: null });
  assert.is(nullV1.toString('hex'), '00000001' + 'ff' + 'ffffffff' + '00000000' + '0000' + '00000000');
  const present = encode('SynthData', 1, { ...base, maybeInner: { a: 2, b: null, c: -1n } });
  assert.is(present.toString('hex'), '00000001' + '01' + '00000002' + 'ffff' + 'ffffffff' + '00000000' + '0000' + '00000000');
  assert.equal(decode('SynthData', 1, nullV1).m.maybeInner, null);
  assert.equal(decode('SynthData', 1, present).m.maybeInner, { a: 2, b: null, c: -1n });
  // v0: no marker byte, and null cannot be written
  const v0 = encode('SynthData', 0, { ...base, maybeInner: { a: 2, b: 'x', c: -1n } });
  assert.is(v0.toString('hex'), '00000001' + '00000002' + '000178' + 'ffffffff' + '0000' + '00000000');
  assert.throws(() => encode('SynthData', 0, { ...base, maybeInner: null }));
  // any negative marker is null (Kafka reads `byte < 0`)
  const neg = Buffer.from(nullV1);
  neg[4] = 0x80;
  assert.is(decode('SynthData', 1, neg).m.maybeInner, null);
});

test('records: nullable and non-nullable, classic and compact', () => {
  const base = {
    id: 0, maybeInner: null, hexDefault: 0x7fffffff, minDefault: -2147483648, int64Max: 0x7fffffffffffffffn, int16Neg: -32768,
    classicString: 'c', strings: null, ids: [], taggedInner: null, taggedNoVersions: -1, taggedString: null,
  };
  const b = encode('SynthData', 2, { ...base, recs: null, recsNotNull: Buffer.from([7]) });
  // id, null struct, recs null (compact 0), recsNotNull compact len 2 + 07, classic string 'c', strings null (compact 0), ids [] (compact 1), no tags
  assert.is(b.toString('hex'), '00000000' + 'ff' + '00' + '0207' + '000163' + '00' + '01' + '00');
  const d = decode('SynthData', 2, b).m;
  assert.is(d.recs, null);
  assert.equal(d.recsNotNull, Buffer.from([7]));
  // null cannot be written into the non-nullable records field (it could not be read back)
  assert.throws(() => encode('SynthData', 2, { ...base, recs: null, recsNotNull: null }), /non-nullable/);
  // a null in the non-nullable records field is rejected when reading
  const bad = Buffer.from(b);
  bad[6] = 0x00;
  assert.throws(() => decode('SynthData', 2, bad), (e: unknown) => e instanceof ProtocolErrorCls);
});

test('defaults "0x7fffffff", "-2147483648", "0x7fffffffffffffff", "-32768" for fields absent in a version', () => {
  const b = encode('SynthData', 0, {
    id: 0, maybeInner: { a: 0, b: null, c: -1n }, recs: null, recsNotNull: null, hexDefault: 0, minDefault: 0, int64Max: 0n, int16Neg: 0,
    classicString: '', strings: [], ids: [], taggedInner: null, taggedNoVersions: -1, taggedString: null,
  });
  const m = decode('SynthData', 0, b).m;
  assert.is(m.hexDefault, 2147483647);
  assert.is(m.minDefault, -2147483648);
  assert.is(m.int64Max, 9223372036854775807n);
  assert.is(m.int16Neg, -32768);
  assert.is(m.taggedNoVersions, -1);
  assert.is(m.taggedString, null);
  assert.equal(m.maybeInner, { a: 0, b: null, c: -1n });
});

test('tagged: nullable struct, field without `versions`, nullable string; written in tag order, read back', () => {
  const m = {
    id: 0, maybeInner: null, recs: null, recsNotNull: Buffer.alloc(0), hexDefault: 0x7fffffff, minDefault: -2147483648, int64Max: 0x7fffffffffffffffn,
    int16Neg: -32768, classicString: '', strings: [], ids: [], taggedInner: { x: 5 }, taggedNoVersions: 9, taggedString: 'ab',
  };
  const b = encode('SynthData', 3, m);
  const tail = b.subarray(b.length - 18).toString('hex');
  // 3 tags: 0 -> marker 01, x=0005, inner tags 00 (4 bytes); 1 -> int32 9; 5 -> compact string "ab"
  assert.is(tail, '03' + '0004' + '01000500' + '0104' + '00000009' + '0503' + '036162');
  assert.equal(decode('SynthData', 3, b).m, m);
  // v2: TaggedNoVersions is not a field yet (taggedVersions 3+): it is neither read nor written
  const b2 = encode('SynthData', 2, { ...m, taggedNoVersions: -1 });
  assert.equal(decode('SynthData', 2, b2).m.taggedNoVersions, -1);
});

test('a message without flexible versions never writes compact fields or tag sections', () => {
  const b = encode('SynthNoFlex', 1, { name: 'n', parts: [{ p: 1 }], opt: { q: 2 } });
  assert.is(b.toString('hex'), '00016e' + '00000001' + '00000001' + '01' + '02');
  assert.equal(decode('SynthNoFlex', 1, b).m, { name: 'n', parts: [{ p: 1 }], opt: { q: 2 } });
  const b0 = encode('SynthNoFlex', 0, { name: 'n', parts: [], opt: null });
  assert.is(b0.toString('hex'), '00016e' + '00000000');
});

test.run();
