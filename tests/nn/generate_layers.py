#!/usr/bin/env python3
"""Golden values for ember's nn layers (part 1), computed with PyTorch's own torch.nn layers.

Run from the repository root with the Python that has PyTorch (Debian's python3-torch, 1.13):

    /usr/bin/python3 tests/nn/generate_layers.py

It writes tests/nn/layers_golden.json, which the tests of tests/nn/*_test.cpp read through
tests/nn/layer_golden.h; commit the result. The test suite never runs this script (CI has no
PyTorch).

Each case builds one torch layer with a generator seeded from the case's name, in float64, and
records its state_dict before the forward passes, the inputs it is given in turn, the outputs,
and for some cases the gradients of sum(last output * grad_output) with respect to the last
input and to the params, and the state after the passes (running statistics). torch 1.13 has no
RMSNorm: its case is computed from the formula with torch ops.

File format: {"cases": {name: case}}; a case is {"state": {name: tensor}, "inputs": [tensor],
"outputs": [tensor]} with optional "grad_output": tensor, "input_grad": tensor, "param_grads":
{name: tensor}, "state_after": {name: tensor}; a tensor is {"dtype": "f64" | "i64", "shape",
"data"} with data flat in row-major order. 0-dim tensors (num_batches_tracked) are written with
shape [1], as ember holds them.
"""

import json
import pathlib
import zlib

import torch
from torch import nn

OUT = pathlib.Path(__file__).with_name("layers_golden.json")


def tensor(t):
    t = t.detach()
    if t.dim() == 0:
        t = t.reshape(1)
    is_float = t.is_floating_point()
    return {
        "dtype": "f64" if is_float else "i64",
        "shape": list(t.shape),
        "data": t.double().reshape(-1).tolist() if is_float else t.reshape(-1).tolist(),
    }


def state(layer):
    return {name: tensor(t) for name, t in layer.state_dict().items()}


def seed(name):
    torch.manual_seed(zlib.crc32(name.encode()))


def randn(*shape):
    # Rounded so the JSON stays short; every value is still exact in f64.
    return (torch.randn(*shape, dtype=torch.float64) * 1000).round() / 1000


def case(name, make, *shapes, train=True, grads=False, after=False, inputs=None):
    """Runs layer make() on inputs of shapes (or the given inputs) in turn."""
    seed(name)
    layer = make()
    layer.train(train)
    if inputs is None:
        inputs = [randn(*shape) for shape in shapes]
    entry = {"state": state(layer), "inputs": [tensor(x) for x in inputs]}
    if grads and inputs[-1].is_floating_point():
        inputs[-1].requires_grad_(True)
    outputs = [layer(x) for x in inputs]
    entry["outputs"] = [tensor(y) for y in outputs]
    if grads:
        grad_output = randn(*outputs[-1].shape)
        outputs[-1].backward(grad_output)
        entry["grad_output"] = tensor(grad_output)
        if inputs[-1].is_floating_point():
            entry["input_grad"] = tensor(inputs[-1].grad)
        entry["param_grads"] = {n: tensor(p.grad) for n, p in layer.named_parameters()}
    if after:
        entry["state_after"] = state(layer)
    return name, entry


def with_random_affine(layer):
    """weight and bias drawn at random, so a test sees them used (their defaults are 1 and 0)."""
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(randn(*p.shape))
    return layer


def with_running_stats(layer):
    with torch.no_grad():
        layer.running_mean.copy_(randn(*layer.running_mean.shape))
        layer.running_var.copy_(torch.rand(*layer.running_var.shape, dtype=torch.float64) + 0.5)
        layer.num_batches_tracked.fill_(7)
    return layer


class RMSNorm(nn.Module):
    """torch.nn.RMSNorm (PyTorch >= 2.4) written out: x / sqrt(mean(x^2) + eps) * weight, eps
    unset meaning the dtype's machine epsilon."""

    def __init__(self, size):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))

    def forward(self, x):
        eps = torch.finfo(x.dtype).eps
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * self.weight


def cases():
    ints = lambda values, shape: torch.tensor(values, dtype=torch.int64).reshape(shape)
    yield case("embedding", lambda: nn.Embedding(6, 3), inputs=[ints([0, 5, 2, 2, 3, 1], [2, 3])])
    yield case("embedding_padding", lambda: nn.Embedding(5, 2, padding_idx=1),
               inputs=[ints([1, 0, 4, 1, 2, 0], [3, 2])], grads=True)
    yield case("conv1d", lambda: nn.Conv1d(2, 4, 3, stride=2, padding=1), [2, 2, 7], grads=True)
    yield case("conv2d", lambda: nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0),
                                           dilation=(1, 2), groups=2), [2, 4, 5, 6], grads=True)
    yield case("conv2d_no_bias", lambda: nn.Conv2d(3, 2, 1, bias=False), [1, 3, 2, 3])
    yield case("conv3d", lambda: nn.Conv3d(2, 3, 2, padding=1), [1, 2, 2, 3, 2])
    yield case("conv_transpose1d",
               lambda: nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1, output_padding=1),
               [2, 3, 4], grads=True)
    yield case("conv_transpose2d",
               lambda: nn.ConvTranspose2d(4, 6, (2, 3), stride=2, padding=(0, 1),
                                          output_padding=(1, 0), groups=2), [1, 4, 3, 3],
               grads=True)
    yield case("conv_transpose3d", lambda: nn.ConvTranspose3d(2, 2, 2, stride=2, bias=False),
               [1, 2, 2, 1, 2])
    yield case("max_pool1d", lambda: nn.MaxPool1d(3, stride=2, padding=1), [2, 3, 8])
    yield case("max_pool2d", lambda: nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True),
               [1, 2, 6, 6])
    yield case("max_pool2d_dilation", lambda: nn.MaxPool2d((2, 3), stride=(2, 1), dilation=(2, 1)),
               [1, 1, 6, 5])
    yield case("avg_pool1d", lambda: nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False),
               [2, 2, 7])
    yield case("avg_pool2d", lambda: nn.AvgPool2d((3, 2), stride=2, padding=(1, 0), ceil_mode=True),
               [1, 2, 6, 5])
    yield case("avg_pool2d_divisor", lambda: nn.AvgPool2d(2, divisor_override=3), [1, 1, 4, 4])
    yield case("adaptive_avg_pool1d", lambda: nn.AdaptiveAvgPool1d(3), [2, 2, 7])
    yield case("adaptive_avg_pool2d", lambda: nn.AdaptiveAvgPool2d((2, 3)), [1, 2, 5, 7])
    yield case("batch_norm_train", lambda: with_random_affine(nn.BatchNorm2d(3)), [4, 3, 2, 2],
               [4, 3, 2, 2], grads=True, after=True)
    yield case("batch_norm_cumulative", lambda: nn.BatchNorm1d(2, momentum=None), [5, 2], [3, 2],
               after=True)
    yield case("batch_norm_eval",
               lambda: with_running_stats(with_random_affine(nn.BatchNorm1d(3, eps=1e-3))),
               [4, 3, 5], train=False)
    yield case("batch_norm3d_no_affine", lambda: nn.BatchNorm3d(2, affine=False, momentum=0.3),
               [2, 2, 2, 2, 2], after=True)
    yield case("layer_norm", lambda: with_random_affine(nn.LayerNorm(4)), [2, 3, 4], grads=True)
    yield case("layer_norm_2d", lambda: with_random_affine(nn.LayerNorm([3, 4], eps=1e-3)),
               [2, 3, 4])
    yield case("group_norm", lambda: with_random_affine(nn.GroupNorm(2, 4)), [2, 4, 3])
    yield case("rms_norm", lambda: with_random_affine(RMSNorm(4)), [2, 3, 4], grads=True)
    yield case("dropout_eval", lambda: nn.Dropout(0.3), [2, 3], train=False)
    yield case("flatten", lambda: nn.Flatten(), [2, 3, 2, 2])
    yield case("flatten_leading", lambda: nn.Flatten(0, 1), [2, 3, 4])
    # Activations: values spread over both signs and past softplus's threshold (beta x > 20).
    spread = lambda: [torch.tensor([-12.0, -3.5, -1.0, -0.25, 0.0, 0.5, 1.0, 3.0, 6.0, 11.0],
                                   dtype=torch.float64).reshape(2, 5)]
    for name, make in [("relu", nn.ReLU), ("leaky_relu", lambda: nn.LeakyReLU(0.2)),
                       ("gelu", nn.GELU), ("gelu_tanh", lambda: nn.GELU(approximate="tanh")),
                       ("sigmoid", nn.Sigmoid), ("tanh", nn.Tanh), ("silu", nn.SiLU),
                       ("softplus", lambda: nn.Softplus(beta=2.0)), ("mish", nn.Mish),
                       ("elu", lambda: nn.ELU(0.5)), ("selu", nn.SELU),
                       ("celu", lambda: nn.CELU(1.5)), ("hard_sigmoid", nn.Hardsigmoid),
                       ("hard_swish", nn.Hardswish)]:
        yield case(name, make, inputs=spread())
    yield case("prelu", lambda: with_random_affine(nn.PReLU(3)), [2, 3, 4], grads=True)
    yield case("softmax", lambda: nn.Softmax(dim=1), [2, 3, 4])
    yield case("log_softmax", lambda: nn.LogSoftmax(dim=-1), [2, 3, 4])


def main():
    torch.set_default_dtype(torch.float64)  # layers are built in f64, so set values stay exact
    golden = {"cases": dict(cases())}
    OUT.write_text(json.dumps(golden, separators=(",", ":")) + "\n")
    print(f"wrote {len(golden['cases'])} cases to {OUT}")


if __name__ == "__main__":
    main()
