#!/usr/bin/env node
// Run many ONNX models in onnxruntime (CPU) from one process, on inputs given as raw files: one
// JSON request a line on stdin, one JSON answer a line on stdout, in order. For drivers that run
// hundreds of small models (tests/conformance/ort_suite.py), where a node start per model would
// cost more than the models.
//
//   node models/ort_batch.js [--level all|extended|basic|disabled] [--threads T]
//
// request: {"id": ..., "model": "M.onnx", "out": "DIR",
//           "inputs": [{"name": "x", "type": "float32", "dims": [2, 3], "file": "x.bin"}, ...]}
//   type is onnxruntime's name (float32, float64, float16, int8 ... int64, uint8 ... uint64, bool,
//   string); file holds the elements row-major as little-endian raw bytes (bool one byte each);
//   a string tensor gives "data": [...] instead of a file.
// answer:  {"id": ..., "ok": true, "outputs": [{"name", "type", "dims", "file"}]} with each output
//   written raw into DIR/output_K.bin (K its place in the session's outputs; a string output as
//   "data" instead), or {"id": ..., "ok": false, "stage": "load" | "feed" | "run" | "fetch",
//   "error": "..."}: the session did not open (onnxruntime refuses the model), the inputs could
//   not be made, the run failed, or an output is not a tensor onnxruntime-node can hand over.
// Each model gets its own session, released before the next request is read.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const ort = require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, int8: Int8Array, int16: Int16Array,
  int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array,
  uint64: BigUint64Array, bool: Uint8Array,
};

function usage(msg) {
  process.stderr.write('ort_batch: ' + msg + '\nusage: node models/ort_batch.js [--level L] [--threads T]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const o = { level: 'all', threads: 1 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (i + 1 >= argv.length) usage(a + ' wants a value');
    if (a === '--level') o.level = argv[++i];
    else if (a === '--threads') o.threads = Number(argv[++i]);
    else usage('unexpected argument ' + a);
  }
  if (!['all', 'extended', 'basic', 'disabled'].includes(o.level)) usage('bad --level ' + o.level);
  if (!Number.isInteger(o.threads) || o.threads < 0) usage('--threads wants a whole number');
  return o;
}

function feed(t) {
  const dims = t.dims.map(Number);
  const n = dims.reduce((a, b) => a * b, 1);
  if (t.type === 'string') {
    if (!Array.isArray(t.data) || t.data.length !== n) throw new Error(`input ${t.name}: wants ${n} strings`);
    return new ort.Tensor('string', t.data, dims);
  }
  const A = ARRAYS[t.type];
  if (!A) throw new Error(`input ${t.name}: type ${t.type} is not one onnxruntime-node feeds`);
  const buf = fs.readFileSync(t.file);
  if (buf.length !== n * A.BYTES_PER_ELEMENT) throw new Error(`input ${t.name}: ${buf.length} bytes for dims [${dims}]`);
  const data = new A(n);  // a copy: aligned, and owned by the tensor
  new Uint8Array(data.buffer).set(buf);
  return new ort.Tensor(t.type, data, dims);
}

function fetch(t, name, k, dir) {
  const o = { name, type: t.type, dims: Array.from(t.dims, Number) };
  if (t.type === 'string') {
    o.data = Array.from(t.data);
  } else {
    if (!ARRAYS[t.type] || !ArrayBuffer.isView(t.data)) throw new Error(`output ${name}: type ${t.type} cannot be fetched`);
    o.file = path.join(dir, `output_${k}.bin`);
    fs.writeFileSync(o.file, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  }
  return o;
}

async function answer(req, opts) {
  let stage = 'load', session;
  try {
    session = await ort.InferenceSession.create(req.model, opts);
    stage = 'feed';
    const feeds = {};
    for (const t of req.inputs) feeds[t.name] = feed(t);
    stage = 'run';
    const results = await session.run(feeds);
    stage = 'fetch';
    fs.mkdirSync(req.out, { recursive: true });
    const outputs = session.outputNames.map((n, k) => fetch(results[n], n, k, req.out));
    return { id: req.id, ok: true, outputs };
  } catch (e) {
    return { id: req.id, ok: false, stage, error: String(e && e.message ? e.message : e).split('\n')[0] };
  } finally {
    if (session) await session.release().catch(() => {});
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const opts = { graphOptimizationLevel: o.level, intraOpNumThreads: o.threads, interOpNumThreads: 1,
                 executionMode: 'sequential', logSeverityLevel: 4 };
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    let req;
    try { req = JSON.parse(line); } catch (e) { usage('bad request: ' + line.slice(0, 200)); }
    process.stdout.write(JSON.stringify(await answer(req, opts)) + '\n');
  }
}

main().catch((e) => {
  process.stderr.write('ort_batch: ' + (e && e.message ? e.message : e) + '\n');
  process.exit(1);
});
