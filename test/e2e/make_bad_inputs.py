#!/usr/bin/python3
"""Writes the inputs of test/e2e/bad_input_test.sh.

    make_bad_inputs.py models OUT_DIR
        OUT_DIR/valid/model.onnx            the e2e mlp (input "input" [batch,64])
        OUT_DIR/valid/input.npy             float32 [2,64]: a good input
        OUT_DIR/valid/input_wrong_shape.npy float32 [2,65]
        OUT_DIR/valid/input_int64.npy       int64 [2,64]
        OUT_DIR/garbage/model.onnx          bytes that are no protobuf
        OUT_DIR/unsupported/model.onnx      Relu -> com.example Frobnicate (node "my_node")
        OUT_DIR/escape/model/model.onnx     initializer "w" with external data at
                                            location "../outside.bin"
        OUT_DIR/escape/outside.bin          that file, present and of the right
                                            size, so only the path is wrong
        OUT_DIR/wrapped/model.onnx          initializer "w" of dims [2^62, 4]
                                            (float) with no data: its byte size
                                            wraps to 0 in 64-bit arithmetic

    make_bad_inputs.py flip FILE COUNT
        XOR COUNT bytes in the middle of FILE with 0xFF, in place.

Run it with /usr/bin/python3 (Debian's python3-onnx and python3-numpy).
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import make_models  # noqa: E402


def _save(model, path, check=True):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if check:
        onnx.checker.check_model(model)
    onnx.save_model(model, path)


def make_all(out):
    # valid model and inputs
    model, _, _, shape = make_models.build_mlp()
    _save(model, os.path.join(out, "valid", "model.onnx"))
    rng = np.random.default_rng(7)
    np.save(os.path.join(out, "valid", "input.npy"),
            rng.standard_normal((2,) + shape).astype(np.float32))
    np.save(os.path.join(out, "valid", "input_wrong_shape.npy"),
            rng.standard_normal((2, shape[0] + 1)).astype(np.float32))
    np.save(os.path.join(out, "valid", "input_int64.npy"),
            rng.integers(-5, 5, (2,) + shape).astype(np.int64))

    # garbage: starts with text, so it fails as protobuf at the first byte
    os.makedirs(os.path.join(out, "garbage"), exist_ok=True)
    with open(os.path.join(out, "garbage", "model.onnx"), "wb") as f:
        f.write(b"this is not an ONNX model\n" + bytes(rng.integers(0, 256, 512, dtype=np.uint8)))

    # unsupported op: one of a domain Tessel has no handlers for, which stays
    # unsupported however many ONNX ops are added
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"], name="relu"),
         helper.make_node("Frobnicate", ["r"], ["y"], name="my_node", domain="com.example")],
        "unsupported",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    _save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                helper.make_opsetid("com.example", 1)]),
          os.path.join(out, "unsupported", "model.onnx"))

    # external data that leaves the model folder
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    os.makedirs(os.path.join(out, "escape", "model"), exist_ok=True)
    with open(os.path.join(out, "escape", "outside.bin"), "wb") as f:
        f.write(w.tobytes())
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=list(w.shape))
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "../outside.bin"), ("offset", "0"),
                 ("length", str(w.nbytes))):
        e = t.external_data.add()
        e.key, e.value = k, v
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")],
        "escape",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
        initializer=[t])
    # Not checked: onnx's checker (rightly) refuses the path, which is the
    # point of this model.
    _save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "escape", "model", "model.onnx"), check=False)
    make_wrapped(out)


def make_wrapped(out):
    """An initializer whose element count times its width wraps to 0 bytes,
    which its empty raw data would match if the importer did not check."""
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2 ** 62, 4])
    t.raw_data = b""
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        "wrapped",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2 ** 62, 4])],
        initializer=[t])
    # Not checked: the point is a tensor whose size cannot be computed.
    _save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "wrapped", "model.onnx"), check=False)


def flip(path, count):
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        mid = len(data) // 2
        for i in range(mid, min(mid + count, len(data))):
            data[i] ^= 0xFF
        f.seek(0)
        f.write(data)


def main(argv):
    if len(argv) == 2 and argv[0] == "models":
        make_all(argv[1])
        return 0
    if len(argv) == 3 and argv[0] == "flip":
        flip(argv[1], int(argv[2]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
