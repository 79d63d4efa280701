#!/usr/bin/env node
// Run an ONNX model in onnxruntime (CPU) on seeded random inputs or inputs from a file; write the
// inputs and outputs as JSON and optionally time it. See usage() and models/README.md.
//
// Input generator (so that another program can reproduce it; the JSON also holds the inputs):
// one mulberry32 stream seeded with --seed (as uint32), drawn through the model's inputs in
// their declared order, each in row-major order, one draw per element:
//   u = mulberry32(state)                        (state += 0x6D2B79F5, then the usual mixing)
//   float32/float64: (u >>> 8) / 2^24 * 2 - 1    (in [-1, 1), exact in float32)
//   float16:         the same, rounded to half precision (its bits in a Uint16Array)
//   int64/int32 and the other integer types: u % intMax   (in [0, intMax))
//   bool:            u & 1
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

function usage(msg) {
  if (msg) process.stderr.write('ort_run: ' + msg + '\n');
  process.stderr.write(
    'usage: node models/ort_run.js MODEL.onnx [options]\n' +
    '  --seed N          input generator seed (default 1)\n' +
    '  --int-max N       integer inputs are drawn from [0, N) (default 100)\n' +
    '  --inputs IN.json  take the inputs from IN.json ({"inputs": [{name, dims, data}]}, e.g. an\n' +
    '                    earlier --out file) instead of drawing them\n' +
    '  --out OUT.json    write the inputs and outputs (names, types, dims, data) there\n' +
    '  --time N          after the warm-up runs, time N runs; print median, p10, p90 (ms)\n' +
    '  --warmup N        warm-up runs before timing (default 10)\n' +
    '  --threads T       intraOpNumThreads (default 2)\n' +
    '  --level L         graphOptimizationLevel: all|extended|basic|disabled (default all)\n' +
    '  --optimized F     save the model as onnxruntime optimized it to F\n' +
    '  --check           exit 1 unless every output is finite and of its declared shape\n' +
    '  --quiet           print nothing but errors and the timing line\n');
  process.exit(2);
}

function parseArgs(argv) {
  const o = { seed: 1, intMax: 100, time: 0, warmup: 10, threads: 2, level: 'all', check: false, quiet: false };
  const num = (k, v) => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < 0) usage(k + ' wants a non-negative integer');
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => { if (i + 1 >= argv.length) usage(a + ' wants a value'); return argv[++i]; };
    switch (a) {
      case '--seed': o.seed = num(a, next()); break;
      case '--int-max': o.intMax = num(a, next()); if (o.intMax < 1) usage('--int-max must be >= 1'); break;
      case '--inputs': o.inputs = next(); break;
      case '--out': o.out = next(); break;
      case '--time': o.time = num(a, next()); break;
      case '--warmup': o.warmup = num(a, next()); break;
      case '--threads': o.threads = num(a, next()); break;
      case '--level': o.level = next(); break;
      case '--optimized': o.optimized = next(); break;
      case '--check': o.check = true; break;
      case '--quiet': o.quiet = true; break;
      case '-h': case '--help': usage();
      default:
        if (a.startsWith('-') || o.model) usage('unexpected argument ' + a);
        o.model = a;
    }
  }
  if (!o.model) usage('no model');
  if (!['all', 'extended', 'basic', 'disabled'].includes(o.level)) usage('bad --level ' + o.level);
  return o;
}

function mulberry32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6D2B79F5) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  };
}

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array,
  bool: Uint8Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array,
  uint32: Uint32Array, uint64: BigUint64Array, float16: Uint16Array,
};
const INTEGER = new Set(['int64', 'int32', 'uint8', 'int8', 'uint16', 'int16', 'uint32', 'uint64']);

// The bits of x as an IEEE half (round to nearest even; x is a draw in [-1, 1), never past
// the half range).
function halfBits(x) {
  const f = new Float32Array([x]), u = new Uint32Array(f.buffer)[0];
  const sign = (u >>> 16) & 0x8000, exp = (u >>> 23) & 0xff, man = u & 0x7fffff;
  if (exp < 103) return sign; // below half's smallest subnormal: zero
  if (exp < 113) { // a subnormal half
    const m = man | 0x800000, shift = 126 - exp, h = m >>> shift, rest = m & ((1 << shift) - 1), half = 1 << (shift - 1);
    return sign | (h + (rest > half || (rest === half && (h & 1)) ? 1 : 0));
  }
  const h = ((exp - 112) << 10) | (man >>> 13), rest = man & 0x1fff;
  return sign | (h + (rest > 0x1000 || (rest === 0x1000 && (h & 1)) ? 1 : 0));
}

function makeTensor(type, dims, values) {
  const A = ARRAYS[type];
  if (!A) throw new Error('input type ' + type + ' is not supported');
  const n = dims.reduce((a, b) => a * b, 1);
  if (values.length !== n) throw new Error('dims ' + JSON.stringify(dims) + ' want ' + n + ' values, got ' + values.length);
  const data = new A(n);
  for (let i = 0; i < n; i++) data[i] = type === 'int64' || type === 'uint64' ? BigInt(values[i]) : Number(values[i]);
  return new ort.Tensor(type, data, dims);
}

function concreteDims(meta) {
  // symbolic dimensions (strings) or unknown ones are taken as 1 (batch 1)
  return meta.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : 1));
}

// o.inputs (optional): per input name, {dims: [...], int_max: N}, the shape to draw it at (its
// symbolic dimensions bound as the caller's check bound them) and its integers' bound (the rows
// of the table a Gather reads with it), in place of concreteDims and o.intMax.
function drawInputs(session, o) {
  const next = mulberry32(o.seed);
  const feeds = {};
  for (const m of session.inputMetadata) {
    if (!m.isTensor) throw new Error('input ' + m.name + ' is not a tensor');
    const spec = (o.inputs && o.inputs[m.name]) || {};
    const given = Array.isArray(spec.dims) && spec.dims.length === m.shape.length &&
      spec.dims.every((d, k) => Number.isInteger(d) && d >= 0 && (typeof m.shape[k] !== 'number' || m.shape[k] === d));
    const dims = given ? spec.dims : concreteDims(m);
    const intMax = Number.isInteger(spec.int_max) && spec.int_max > 0 ? spec.int_max : o.intMax;
    const n = dims.reduce((a, b) => a * b, 1);
    const v = new Array(n);
    for (let i = 0; i < n; i++) {
      const u = next();
      if (m.type === 'float32' || m.type === 'float64') v[i] = (u >>> 8) / 16777216 * 2 - 1;
      else if (m.type === 'float16') v[i] = halfBits((u >>> 8) / 16777216 * 2 - 1);
      else if (INTEGER.has(m.type)) v[i] = u % intMax;
      else if (m.type === 'bool') v[i] = u & 1;
      else throw new Error('input ' + m.name + ': type ' + m.type + ' is not supported');
    }
    feeds[m.name] = makeTensor(m.type, dims, v);
  }
  return feeds;
}

function readInputs(session, file) {
  const j = JSON.parse(fs.readFileSync(file, 'utf8'));
  const list = Array.isArray(j) ? j : j.inputs;
  if (!Array.isArray(list)) throw new Error(file + ': no "inputs" array');
  const byName = new Map(list.map((t) => [t.name, t]));
  const feeds = {};
  for (const m of session.inputMetadata) {
    const t = byName.get(m.name);
    if (!t) throw new Error(file + ': no input ' + m.name);
    feeds[m.name] = makeTensor(t.type || m.type, t.dims, t.data.map(fromJson));
  }
  return feeds;
}

// JSON has no NaN or infinities: they are written as the strings "NaN", "Infinity", "-Infinity".
function toJson(x) {
  if (typeof x === 'bigint') return Number(x);
  return Number.isFinite(x) ? x : String(x);
}
function fromJson(x) { return typeof x === 'string' ? Number(x) : x; }

function tensorJson(name, t) {
  return { name, type: t.type, dims: Array.from(t.dims), data: Array.from(t.data, toJson) };
}

function summary(t) {
  let min = Infinity, max = -Infinity, sum = 0, bad = 0;
  for (const x0 of t.data) {
    const x = Number(x0);
    if (!Number.isFinite(x)) { bad++; continue; }
    if (x < min) min = x;
    if (x > max) max = x;
    sum += x;
  }
  const n = t.data.length - bad;
  return { min, max, mean: n ? sum / n : NaN, nonfinite: bad };
}

function quantile(sorted, q) {
  const p = (sorted.length - 1) * q;
  const lo = Math.floor(p), hi = Math.ceil(p);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (p - lo);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const log = (s) => { if (!o.quiet) process.stdout.write(s + '\n'); };
  const opts = {
    graphOptimizationLevel: o.level, intraOpNumThreads: o.threads, interOpNumThreads: 1,
    executionMode: 'sequential',
  };
  if (o.optimized) opts.optimizedModelFilePath = o.optimized;
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(o.model, opts);
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const feeds = o.inputs ? readInputs(session, o.inputs) : drawInputs(session, o);
  const t1 = process.hrtime.bigint();
  const results = await session.run(feeds);
  const firstMs = Number(process.hrtime.bigint() - t1) / 1e6;
  log(`${o.model}: loaded in ${loadMs.toFixed(1)} ms (level ${o.level}, ${o.threads} threads), first run ${firstMs.toFixed(1)} ms`);
  for (const [name, t] of Object.entries(feeds)) log(`  input  ${name} ${t.type} [${t.dims.join('x')}]`);

  let failed = false;
  const outMeta = new Map(session.outputMetadata.map((m) => [m.name, m]));
  for (const name of session.outputNames) {
    const t = results[name];
    const s = summary(t);
    const m = outMeta.get(name);
    let note = '';
    if (m && m.isTensor) {
      const want = m.shape;
      const ok = want.length === t.dims.length &&
        want.every((d, i) => typeof d !== 'number' || d < 0 || d === t.dims[i]);
      if (!ok) { note += ` SHAPE (declared [${want.join('x')}])`; failed = true; }
    }
    if (s.nonfinite) { note += ` NONFINITE ${s.nonfinite}`; failed = true; }
    log(`  output ${name} ${t.type} [${t.dims.join('x')}] min ${s.min.toPrecision(4)} max ${s.max.toPrecision(4)} mean ${s.mean.toPrecision(4)}${note}`);
  }

  let timing;
  if (o.time > 0) {
    for (let i = 0; i < o.warmup; i++) await session.run(feeds);
    const ms = [];
    for (let i = 0; i < o.time; i++) {
      const a = process.hrtime.bigint();
      await session.run(feeds);
      ms.push(Number(process.hrtime.bigint() - a) / 1e6);
    }
    ms.sort((a, b) => a - b);
    timing = {
      runs: o.time, warmup: o.warmup, median_ms: quantile(ms, 0.5), p10_ms: quantile(ms, 0.1),
      p90_ms: quantile(ms, 0.9), min_ms: ms[0], max_ms: ms[ms.length - 1],
    };
    process.stdout.write(`${path.basename(o.model)}: median ${timing.median_ms.toFixed(3)} ms, p10 ${timing.p10_ms.toFixed(3)}, p90 ${timing.p90_ms.toFixed(3)} (${o.time} runs, level ${o.level}, ${o.threads} threads)\n`);
  }

  if (o.out) {
    const j = {
      model: o.model, onnxruntime: ort.env.versions.common, level: o.level, threads: o.threads,
      seed: o.inputs ? null : o.seed, int_max: o.intMax, inputs_from: o.inputs || null,
      generator: 'mulberry32(seed), inputs in declared order, row-major; float: (u>>>8)/2^24*2-1; int: u % int_max',
      inputs: Object.entries(feeds).map(([n, t]) => tensorJson(n, t)),
      outputs: session.outputNames.map((n) => tensorJson(n, results[n])),
    };
    if (timing) j.timing = timing;
    fs.writeFileSync(o.out, JSON.stringify(j) + '\n');
  }
  await session.release();
  if (o.check && failed) {
    process.stderr.write(`ort_run: ${o.model}: outputs fail the check\n`);
    process.exit(1);
  }
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write('ort_run: ' + (e && e.message ? e.message : e) + '\n');
    process.exit(1);
  });
}

// what models/ort_compare.js shares
module.exports = { ort, drawInputs, quantile };
