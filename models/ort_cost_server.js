#!/usr/bin/env node
// The onnxruntime helper of graphopt's `--cost ort` and its guard (optimizer/cost/ort_helper.c is
// the client): one long-lived process that times ONNX models in onnxruntime (CPU), one request
// at a time, so that node and onnxruntime load once per cost model, not once per configuration.
//
// Framing (fixed-width text headers, so a test's fake helper can be a shell script):
//   request: "rg-ort-request SEQ LEN\n" then LEN bytes: one JSON line (the command), then the
//            models' bytes; SEQ ten digits, LEN twelve, zero-padded
//   reply:   "rg-ort-reply SEQ LEN\n" then LEN bytes of text: "ok ..." or
//            "error STAGE MESSAGE" (STAGE: request, load, feed, run), one reply per request, in order
// Commands:
//   {"cmd": "version"}  -> "ok onnxruntime-node VERSION node VERSION"
//   {"cmd": "time", "threads": T, "warmup": W, "min_runs": N, "max_runs": M, "min_ms": S} + model
//       -> "ok MEDIAN_US RUNS": W untimed runs, then timed ones until N runs and S ms are spent
//          (or M runs); the median in microseconds; the outputs go to tensors made once
//   {"cmd": "pair", "threads": T, "warmup": W, "min_pairs": N, "max_pairs": M, "min_ms": S,
//    "a_file": PATH | "a_len": BYTES, "b_file": PATH | "b_len": BYTES, "b_first": BOOL,
//    "inputs": {NAME: {"dims": [..], "int_max": N}} (optional: ort_run.js's drawInputs)}
//    + (model a) + (model b)
//       -> "ok PAIRS\n" then a line "A_US B_US" per pair (an error naming "model a" or "model b"
//          when one does not load or run its inputs): both sessions open (b's first when
//          b_first), W warm-ups each, then pairs in alternating order (A B, B A, ...) so load
//          falls on both alike, until N pairs and S ms (or M pairs)
// Sessions as models/ort_compare.js opens them: graph optimization 'all', T intra-op threads
// (inter-op 1, sequential), no spinning pool threads (an idle spinning pool would take the
// cores the timed run needs). Inputs are drawn as models/ort_run.js draws them (seed 1; integer
// inputs from [0, 100)). Each session is released before the next request is read. Messages go
// to stderr; stdout carries only replies. The helper ends when its input does.
'use strict';
const fs = require('fs');
const { ort, drawInputs } = require('./ort_run.js');

const REQ_TAG = 'rg-ort-request ', REQ_HEADER = REQ_TAG.length + 10 + 1 + 12 + 1;

function reply(seq, text) {
  const body = Buffer.from(text);
  const head = 'rg-ort-reply ' + String(seq).padStart(10, '0') + ' ' + String(body.length).padStart(10, '0') + '\n';
  fs.writeSync(1, Buffer.concat([Buffer.from(head), body]));
}

function sessionOptions(threads) {
  return { graphOptimizationLevel: 'all', intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
           extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } } };
}

function whole(x, name, lo) {
  if (!Number.isInteger(x) || x < lo) throw new Error(`${name} wants a whole number >= ${lo}`);
  return x;
}

class Failure extends Error {
  constructor(stage, e) { super(e && e.message ? e.message : String(e)); this.stage = stage; }
}

async function stage(name, f) {
  try { return await f(); } catch (e) { throw e instanceof Failure ? e : new Failure(name, e); }
}

async function open(model, threads, inputs) {
  const s = await stage('load', () => ort.InferenceSession.create(model, sessionOptions(threads)));
  const feeds = await stage('feed', () => drawInputs(s, { seed: 1, intMax: 100, inputs }));
  return { s, feeds, fetches: undefined };
}

// Outputs written into tensors made once (onnxruntime's pre-allocated outputs): a node inside a
// model hands its result on in onnxruntime's arena, and what one run of a node costs must not
// include node's allocation of a fresh buffer for it and the page faults of that.
async function preallocate(x) {
  const r = await stage('run', () => x.s.run(x.feeds));
  x.fetches = {};
  for (const n of x.s.outputNames) x.fetches[n] = new ort.Tensor(r[n].type, new r[n].data.constructor(r[n].data.length), r[n].dims);
}

async function runUs(x) {
  const t0 = process.hrtime.bigint();
  await stage('run', () => (x.fetches ? x.s.run(x.feeds, x.fetches) : x.s.run(x.feeds)));
  return Number(process.hrtime.bigint() - t0) / 1e3;
}

function median(v) {
  const s = [...v].sort((a, b) => a - b), h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}

async function timeOne(cmd, models) {
  const x = await open(models[0], cmd.threads);
  try {
    await preallocate(x);
    for (let i = 0; i < cmd.warmup; i++) await runUs(x);
    const us = [];
    let spent = 0;
    while (us.length < cmd.max_runs && (us.length < cmd.min_runs || spent < cmd.min_ms * 1e3)) {
      us.push(await runUs(x));
      spent += us[us.length - 1];
    }
    return `ok ${median(us)} ${us.length}`;
  } finally {
    await x.s.release();
  }
}

async function timePairs(cmd, models) {
  const xs = [];
  try {
    // the order sessions are made in, on request: what comes of it falls on each alike over rounds
    // a failure names its model ("model b: ..."): the caller keeps a whose b onnxruntime refuses
    const named = async (k, f) => {
      try { return await f(); } catch (e) { throw new Failure(e.stage || 'load', `model ${k ? 'b' : 'a'}: ${e.message}`); }
    };
    const opened = (k) => named(k, () => open(models[k], cmd.threads, cmd.inputs)), run = (k) => named(k, () => runUs(xs[k]));
    if (cmd.b_first) xs[1] = await opened(1), xs[0] = await opened(0);
    else for (const k of [0, 1]) xs.push(await opened(k));
    for (const k of [0, 1]) for (let i = 0; i < cmd.warmup; i++) await run(k);
    const lines = [];
    const t0 = process.hrtime.bigint(), ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
    for (let i = 0; i < cmd.max_pairs && (i < cmd.min_pairs || ms() < cmd.min_ms); i++) {
      const t = [0, 0];
      for (const k of i % 2 ? [1, 0] : [0, 1]) t[k] = await run(k);
      lines.push(`${t[0]} ${t[1]}`);
    }
    return `ok ${lines.length}\n${lines.join('\n')}\n`;
  } finally {
    for (const x of xs) if (x) await x.s.release();
  }
}

// The command of one request's payload, and its models (a file's path, or bytes of the payload).
function parse(payload) {
  const nl = payload.indexOf(10);
  if (nl < 0) throw new Failure('request', 'no command line');
  const cmd = JSON.parse(payload.subarray(0, nl).toString());
  if (!['version', 'time', 'pair'].includes(cmd.cmd)) throw new Failure('request', `no command '${cmd.cmd}'`);
  const rest = payload.subarray(nl + 1), models = [];
  let at = 0;
  const take = (n) => {
    whole(n, 'a model length', 1);
    if (at + n > rest.length) throw new Error(`a model of ${n} bytes where ${rest.length - at} remain`);
    models.push(new Uint8Array(rest.buffer, rest.byteOffset + at, n));
    at += n;
  };
  if (cmd.cmd === 'time') take(rest.length);
  if (cmd.cmd === 'pair') {
    if (typeof cmd.a_file === 'string') models.push(cmd.a_file);
    else take(cmd.a_len);
    if (typeof cmd.b_file === 'string') models.push(cmd.b_file);
    else take(cmd.b_len);
  }
  if (cmd.cmd !== 'version') {
    whole(cmd.threads, 'threads', 1), whole(cmd.warmup, 'warmup', 0);
    for (const k of cmd.cmd === 'time' ? ['min_runs', 'max_runs', 'min_ms'] : ['min_pairs', 'max_pairs', 'min_ms'])
      whole(cmd[k], k, k === 'min_ms' ? 0 : 1);
  }
  return { cmd, models };
}

async function answer(payload) {
  let req;
  try { req = parse(payload); } catch (e) { throw e instanceof Failure ? e : new Failure('request', e); }
  switch (req.cmd.cmd) {
    case 'version': return `ok onnxruntime-node ${ort.env.versions.common} node ${process.version}`;
    case 'time': return timeOne(req.cmd, req.models);
    default: return timePairs(req.cmd, req.models);
  }
}

// Requests are answered one after another: a request's bytes are taken whole from stdin, then
// answered, then the next. Chunks are joined once a request is whole (a model of hundreds of MB
// arrives in thousands of chunks).
let chunks = [], have = 0, busy = false, waiting = 0; // waiting: bytes the request begun needs
function take(n) {
  const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, have);
  chunks = all.length > n ? [all.subarray(n)] : [];
  have -= n;
  return all.subarray(0, n);
}
function peek(n) {
  if (chunks.length > 1) chunks = [Buffer.concat(chunks, have)];
  return chunks[0].subarray(0, n);
}
async function serve() {
  if (busy) return;
  busy = true;
  while (have >= REQ_HEADER && have >= waiting) {
    const head = peek(REQ_HEADER).toString('latin1');
    const m = /^rg-ort-request (\d{10}) (\d{12})\n$/.exec(head);
    if (!m) {
      process.stderr.write('ort_cost_server: not a request header: ' + JSON.stringify(head) + '\n');
      process.exit(2);
    }
    const len = Number(m[2]);
    if (have < REQ_HEADER + len) {
      waiting = REQ_HEADER + len;
      break;
    }
    waiting = 0;
    const payload = take(REQ_HEADER + len).subarray(REQ_HEADER);
    let text;
    try {
      text = await answer(payload);
    } catch (e) {
      const why = (e && e.message ? e.message : String(e)).replace(/\s+/g, ' ');
      text = `error ${e instanceof Failure ? e.stage : 'run'} ${why}`;
    }
    reply(Number(m[1]), text);
  }
  busy = false;
}

process.stdin.on('data', (chunk) => {
  chunks.push(chunk), have += chunk.length;
  serve().catch((e) => { process.stderr.write('ort_cost_server: ' + (e && e.stack ? e.stack : e) + '\n'); process.exit(1); });
});
process.stdin.on('end', () => { const wait = () => (busy ? setTimeout(wait, 5) : process.exit(0)); wait(); });
