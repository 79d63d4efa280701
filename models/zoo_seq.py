"""Sequence models of the zoo: TASO's NasRNN and BERT (base, and a 2-layer variant for tests)."""
import numpy as np

from zoo_graph import INT64


# -- NasRNN (TASO's examples/nasrnn.py, unrolled) ---------------------------------------------
def nasrnn(g, hidden=512, length=5):
    """The NAS RNN cell of TASO's example unrolled over `length` steps: each step combines the
    step's input x_t and the state with 8 pairs of MatMuls (x_t W + h U, every pair with its own
    weights, as TASO draws new weights in every combine), mixes them with ReLU, Sigmoid, Tanh,
    Add and Mul, and ends in Tanh. The initial state is a weight, as in TASO."""
    xs = [g.input("x_%d" % t, [1, hidden]) for t in range(length)]
    std = 1.0 / np.sqrt(hidden)
    h = g.param("h0", g.uniform((1, hidden), -1.0, 1.0))
    for t in range(length):
        with g.scope("step_%d" % t):
            ts = []
            for i in range(8):
                with g.scope("combine_%d" % i):
                    a = g.matmul(xs[t], g.param("w_x", g.normal((hidden, hidden), std)))
                    b = g.matmul(h, g.param("w_h", g.normal((hidden, hidden), std)))
                    ts.append(g.add(a, b))
            sig = lambda v: g.unary("Sigmoid", v)
            tanh = lambda v: g.unary("Tanh", v)
            m0 = g.add(g.relu(ts[0]), sig(ts[3]))
            m1 = g.add(sig(ts[1]), tanh(ts[2]))
            m2 = g.mul(sig(ts[4]), tanh(ts[5]))
            m3 = g.mul(sig(ts[6]), g.relu(ts[7]))
            m4 = g.add(sig(m1), tanh(m2))
            m5 = g.mul(tanh(m0), tanh(m3))
            m6 = g.mul(tanh(m4), tanh(m5))
            h = tanh(m6)
    g.output(h, "output")


# -- BERT ---------------------------------------------------------------------------------------
def _self_attention(g, h, heads):
    n, s, d = g.shape[h]
    hd = d // heads
    with g.scope("self"):
        with g.scope("query"):
            q = g.linear(h, d, std=0.02)
        with g.scope("key"):
            k = g.linear(h, d, std=0.02)
        with g.scope("value"):
            v = g.linear(h, d, std=0.02)
        q = g.transpose(g.reshape(q, [n, s, heads, hd]), [0, 2, 1, 3])
        k = g.transpose(g.reshape(k, [n, s, heads, hd]), [0, 2, 3, 1])
        v = g.transpose(g.reshape(v, [n, s, heads, hd]), [0, 2, 1, 3])
        scores = g.binary("Div", g.matmul(q, k), g.const(float(np.sqrt(hd))))
        ctx = g.matmul(g.softmax(scores, -1), v)
        ctx = g.reshape(g.transpose(ctx, [0, 2, 1, 3]), [n, s, d])
    with g.scope("output"):
        with g.scope("dense"):
            y = g.linear(ctx, d, std=0.02)
        y = g.add(y, h)
        with g.scope("LayerNorm"):
            return g.layer_norm(y)


def _bert(g, layers, hidden=768, heads=12, seq=128, ffn=3072, vocab=30522, max_pos=512):
    """HuggingFace's BertModel as torch.onnx exports it (opset 13, constant folding on): input_ids
    only (no attention mask; token types all 0), embeddings by Gather, LayerNorm decomposed into
    ReduceMean/Sub/Pow/Sqrt/Div/Mul/Add, GELU through Erf, attention with MatMul and Softmax, and
    the pooler (first token, dense, Tanh)."""
    ids = g.input("input_ids", [1, seq], INT64)
    with g.scope("embeddings"):
        with g.scope("word_embeddings"):
            e = g.gather(g.param("weight", g.normal((vocab, hidden), 0.02)), ids)
        with g.scope("token_type_embeddings"):
            tt = g.gather(g.param("weight", g.normal((2, hidden), 0.02)),
                          g.param("token_type_ids", np.zeros((1, seq), np.int64)))
        with g.scope("position_embeddings"):
            pe = g.gather(g.param("weight", g.normal((max_pos, hidden), 0.02)),
                          g.param("position_ids", np.arange(seq, dtype=np.int64).reshape(1, seq)))
        e = g.add(g.add(e, tt), pe)
        with g.scope("LayerNorm"):
            h = g.layer_norm(e)
    with g.scope("encoder"):
        for i in range(layers):
            with g.scope("layer"), g.scope("layer.%d" % i):
                with g.scope("attention"):
                    a = _self_attention(g, h, heads)
                with g.scope("intermediate"), g.scope("dense"):
                    f = g.gelu(g.linear(a, ffn, std=0.02))
                with g.scope("output"):
                    with g.scope("dense"):
                        f = g.linear(f, hidden, std=0.02)
                    f = g.add(f, a)
                    with g.scope("LayerNorm"):
                        h = g.layer_norm(f)
    with g.scope("pooler"):
        first = g.gather(h, g.const(0, INT64), axis=1)
        with g.scope("dense"):
            p = g.unary("Tanh", g.gemm(first, hidden))
    g.output(h, "last_hidden_state")
    g.output(p, "pooler_output")


def bert(g):
    _bert(g, 12)


def bert2(g):
    _bert(g, 2)
