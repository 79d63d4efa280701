#!/usr/bin/env node
// Latency of two models in onnxruntime (CPU), measured side by side: both sessions open in one
// process, the same seeded inputs (ort_run.js's draws), warm-up runs of each, then runs
// interleaved in pairs whose order alternates (A B, B A, A B, ...) so that load on the machine
// and whatever one run leaves to the next fall on both alike; at least --runs pairs, more until
// --min-seconds have passed (at most 10 x --runs). Prints each model's median, p10 and p90, the
// ratio of medians (A / B: above 1, B is faster) and the median of the pairs' ratios. Graph
// optimization level 'all' and 2 intra-op threads unless told otherwise.
//   node models/ort_compare.js A.onnx B.onnx [--runs N] [--min-seconds S] [--warmup N] [--threads T]
//                              [--level L] [--seed S] [--json]
'use strict';
const { ort, drawInputs, quantile } = require('./ort_run.js');

function usage(msg) {
  if (msg) process.stderr.write('ort_compare: ' + msg + '\n');
  process.stderr.write('usage: node models/ort_compare.js A.onnx B.onnx [--runs N (100)] [--min-seconds S (0)] [--warmup N (10)] ' +
                       '[--threads T (2)] [--level all|extended|basic|disabled] [--seed S (1)] [--int-max N (100)] [--json]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const o = { runs: 100, minSeconds: 0, spin: false, warmup: 10, threads: 2, level: 'all', seed: 1, intMax: 100, json: false, models: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 0) usage(a + ' wants a whole number');
      return v;
    };
    switch (a) {
      case '--runs': o.runs = num(); break;
      case '--min-seconds': o.minSeconds = num(); break;
      case '--warmup': o.warmup = num(); break;
      case '--threads': o.threads = num(); break;
      case '--seed': o.seed = num(); break;
      case '--int-max': o.intMax = num(); break;
      case '--level': o.level = argv[++i]; break;
      case '--json': o.json = true; break;
      case '--spin': o.spin = true; break;
      default:
        if (a.startsWith('-')) usage('unknown option ' + a);
        o.models.push(a);
    }
  }
  if (o.models.length !== 2) usage('wants two models');
  if (o.runs < 1) usage('--runs wants at least 1');
  if (!['all', 'extended', 'basic', 'disabled'].includes(o.level)) usage('bad --level ' + o.level);
  return o;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  /* no spinning: a session's idle pool threads would spin on the cores the other one runs on */
  const opts = { graphOptimizationLevel: o.level, intraOpNumThreads: o.threads, interOpNumThreads: 1,
                 executionMode: 'sequential', extra: { session: { intra_op: { allow_spinning: o.spin ? '1' : '0' } } } };
  const sessions = [];
  for (const m of o.models) sessions.push(await ort.InferenceSession.create(m, opts));
  const feeds = sessions.map((s) => drawInputs(s, o));
  for (let k = 0; k < 2; k++)
    for (let i = 0; i < o.warmup; i++) await sessions[k].run(feeds[k]);
  const ms = [[], []], pairs = [];
  const t0 = process.hrtime.bigint(), elapsed = () => Number(process.hrtime.bigint() - t0) / 1e9;
  for (let i = 0; i < o.runs || (elapsed() < o.minSeconds && i < 10 * o.runs); i++) {
    const t = [0, 0];
    for (const k of i % 2 ? [1, 0] : [0, 1]) {
      const start = process.hrtime.bigint();
      await sessions[k].run(feeds[k]);
      t[k] = Number(process.hrtime.bigint() - start) / 1e6;
      ms[k].push(t[k]);
    }
    pairs.push(t[0] / t[1]);
  }
  const stats = ms.map((v) => {
    v.sort((a, b) => a - b);
    return { median_ms: quantile(v, 0.5), p10_ms: quantile(v, 0.1), p90_ms: quantile(v, 0.9) };
  });
  pairs.sort((a, b) => a - b);
  const pairRatio = quantile(pairs, 0.5), runs = pairs.length;
  const ratio = stats[0].median_ms / stats[1].median_ms;
  if (o.json) {
    process.stdout.write(JSON.stringify({ models: o.models, runs, warmup: o.warmup, threads: o.threads,
                                          level: o.level, a: stats[0], b: stats[1], ratio, pair_ratio: pairRatio }) + '\n');
  } else {
    for (let k = 0; k < 2; k++)
      process.stdout.write(`${o.models[k]}: median ${stats[k].median_ms.toFixed(3)} ms, p10 ${stats[k].p10_ms.toFixed(3)}, ` +
                           `p90 ${stats[k].p90_ms.toFixed(3)}\n`);
    process.stdout.write(`ratio of medians (A / B): ${ratio.toFixed(3)}; median of the pairs' ratios ${pairRatio.toFixed(3)} ` +
                         `(${runs} interleaved runs each, level ${o.level}, ${o.threads} threads)\n`);
  }
  for (const s of sessions) await s.release();
}

main().catch((e) => {
  process.stderr.write('ort_compare: ' + (e && e.message ? e.message : e) + '\n');
  process.exit(1);
});
