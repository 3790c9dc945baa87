#!/usr/bin/env python3
"""Builds an .onnx model from ONNX textual syntax embedded in a lit test.

Usage: onnx-text.py TEST_FILE OUT.onnx [--external NAME]

Every line of TEST_FILE that contains 'ONNX:' contributes the text after it.
With --external, every initializer-free Constant stays as is; tensors in
`initializers` lines (ONNX-INIT: name dtype dims values...) are added as
initializers, stored in the external file NAME beside OUT.onnx.
"""
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper
import onnx.parser


def main():
    test, out = sys.argv[1], sys.argv[2]
    external = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--external" else None
    text, inits = [], []
    with open(test) as f:
        for line in f:
            if "ONNX-INIT:" in line:
                name, dtype, dims, *values = line.split("ONNX-INIT:", 1)[1].split()
                shape = [int(d) for d in dims.split("x")] if dims != "scalar" else []
                inits.append(onnx.numpy_helper.from_array(
                    np.array([float(v) for v in values], dtype=dtype).reshape(shape), name))
            elif "ONNX:" in line:
                text.append(line.split("ONNX:", 1)[1])
    model = onnx.parser.parse_model("\n".join(text))
    model.graph.initializer.extend(inits)
    if external:
        onnx.save_model(model, out, save_as_external_data=True, location=external,
                        size_threshold=0, all_tensors_to_one_file=True)
    else:
        onnx.save_model(model, out)


if __name__ == "__main__":
    main()
