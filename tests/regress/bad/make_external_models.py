#!/usr/bin/python3
"""Writes the models of tests/regress/bad/model_cases.txt whose weights are in a side file
(ONNX's external data; committed, rerun this to remake them): one good, and each of the others
broken in one way graphopt must refuse clearly, naming the tensor and the side file. A side file
that is a link out of the model's folder is made at test time (models/external.py).

    cd tests/regress/bad && /usr/bin/python3 make_external_models.py
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
W = np.arange(16, dtype=np.float32).reshape(4, 4) / 8 - 1  # 64 bytes


def save(name, entries, data=None, dims=(4, 4), elem=F):
    """model_ext_NAME.onnx: y = x @ w, w's data outside as entries say; data: the side file's
    bytes (written as model_ext_NAME.bin), None: no file."""
    w = onnx.TensorProto(name="w", data_type=elem, dims=list(dims))
    w.data_location = TensorProto.EXTERNAL
    for k, v in entries:
        w.external_data.add(key=k, value=v)
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], name,
                          [helper.make_tensor_value_info("x", F, [1, 4])], [helper.make_tensor_value_info("y", F, [1, 4])],
                          [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_external_models.py")
    m.ir_version = 8
    onnx.save(m, "model_ext_%s.onnx" % name)
    if data is not None:
        with open("model_ext_%s.bin" % name, "wb") as f:
            f.write(data)


raw = W.tobytes()
save("good", [("location", "model_ext_good.bin"), ("offset", "64"), ("length", "64")], bytes(64) + raw)
save("escape", [("location", "../model_ext_good.bin")])
save("absolute", [("location", "/etc/passwd")])
save("missing", [("location", "model_ext_missing.bin")])
save("truncated", [("location", "model_ext_truncated.bin")], raw[:40])
save("offset", [("location", "model_ext_offset.bin"), ("offset", "4096")], raw)
save("length", [("location", "model_ext_length.bin"), ("length", "32")], raw)
save("no_location", [("offset", "0")])
save("bad_offset", [("location", "model_ext_bad_offset.bin"), ("offset", "-8")], raw)
save("string", [("location", "model_ext_string.bin")], raw, dims=(2,), elem=TensorProto.STRING)
# the good model's data read through another model's entry: checked against numpy's
assert numpy_helper.to_array(onnx.load("model_ext_good.onnx").graph.initializer[0]).tolist() == W.tolist()
