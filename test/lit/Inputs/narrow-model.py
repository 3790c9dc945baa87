"""Small models with ONNX's narrow formats, which onnx 1.12's text syntax
cannot spell: narrow-model.py CASE OUT.onnx (see narrow-formats.test)."""
import sys

import numpy as np
from onnx import TensorProto, helper

case, out = sys.argv[1], sys.argv[2]
F, I4, F8 = TensorProto.FLOAT, 22, 17
vi = helper.make_tensor_value_info
if case == "import":
    # An int4 initializer, packed two to a byte (-8, 7, 1 and -1, padded),
    # in raw_data; a uint2 one in int32_data (one packed byte each).
    w = TensorProto(name="w", data_type=I4, dims=[4], raw_data=bytes([0x78, 0xF1]))
    u = TensorProto(name="u", data_type=25, dims=[5], int32_data=[0b11100100, 0b10])
    nodes = [helper.make_node("Cast", ["x"], ["y"], to=F8, saturate=0),
             helper.make_node("Cast", ["y"], ["z"], to=TensorProto.FLOAT16),
             helper.make_node("Cast", ["x"], ["e"], to=24, round_mode="nearest"),
             helper.make_node("Reshape", ["w", "shape"], ["r"]),
             helper.make_node("CastLike", ["u", "x"], ["uf"])]
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], [2, 2])
    graph = helper.make_graph(nodes, "g", [vi("x", F, [4])],
                              [vi("z", TensorProto.FLOAT16, [4]), vi("e", 24, [4]),
                               vi("r", I4, [2, 2]), vi("uf", F, [5])],
                              initializer=[w, u, shape])
elif case == "add":
    nodes = [helper.make_node("Cast", ["x"], ["y"], to=F8),
             helper.make_node("Add", ["y", "y"], ["z"])]
    graph = helper.make_graph(nodes, "g", [vi("x", F, [4])], [vi("z", F8, [4])])
elif case == "round_mode":
    nodes = [helper.make_node("Cast", ["x"], ["y"], to=24, round_mode="zero")]
    graph = helper.make_graph(nodes, "g", [vi("x", F, [4])], [vi("y", 24, [4])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
model.ir_version = 8
open(out, "wb").write(model.SerializeToString())
