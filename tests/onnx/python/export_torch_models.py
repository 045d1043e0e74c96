"""Exports two small PyTorch models to ONNX with torch.onnx.export and writes, for each, the
inputs it was run on and PyTorch's outputs, for tests/onnx/onnx_pytorch_test.cpp:

    OUT/<model>.onnx, OUT/<model>_input.npy, OUT/<model>_output.npy

cnn_dynamic is cnn exported with a symbolic batch dim and run at another batch than traced.

cnn: conv (padding 1), batch norm (eval), relu, max pool, conv (stride 2), global average
pool, flatten, linear. encoder: nn.TransformerEncoderLayer (d_model 16, 2 heads, gelu,
batch_first, eval). Weights are PyTorch's initialisation under a fixed seed, batch norm's
running statistics set to values away from 0 and 1.

Run with the peer PyTorch venv (install-torch-onnx): python export_torch_models.py OUT
"""

import os
import sys
import warnings

import numpy as np
import torch
from torch import nn


def cnn():
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, stride=2),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(16, 10),
    )
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.5, 0.5)
        model[1].running_var.uniform_(0.5, 2.0)
    return model.eval(), torch.randn(2, 3, 16, 16)


def encoder():
    model = nn.TransformerEncoderLayer(
        d_model=16, nhead=2, dim_feedforward=32, activation="gelu", batch_first=True
    )
    return model.eval(), torch.randn(2, 5, 16)


def export(name, model, x, out, run_x=None, dynamic_axes=None):
    path = os.path.join(out, name + ".onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), path, input_names=["x"], output_names=["y"],
                          opset_version=18, external_data=False, dynamic_axes=dynamic_axes)
    x = x if run_x is None else run_x
    with torch.no_grad():
        y = model(x)
    np.save(os.path.join(out, name + "_input.npy"), x.numpy())
    np.save(os.path.join(out, name + "_output.npy"), y.numpy())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for name, make in (("cnn", cnn), ("encoder", encoder)):
        model, x = make()
        export(name, model, x, out)
        if name == "cnn":
            export("cnn_dynamic", model, x, out, torch.randn(5, 3, 16, 16),
                   {"x": {0: "batch"}, "y": {0: "batch"}})


if __name__ == "__main__":
    main()
