#!/usr/bin/env python3
"""PyTorch autograd goldens for ember's neural-network functions: convolutions, pooling,
interpolation, the normalizations, attention, linear, embedding, every loss and every activation.

Run from the repository root with Debian's PyTorch (python3-torch, installed for /usr/bin/python3,
not for a pyenv python3 on PATH):

    /usr/bin/python3 tests/pytorch/generate.py

It writes tests/pytorch/pytorch_golden.json, which tests/pytorch/pytorch_golden_test.cpp reads;
commit the result. The test suite never runs this script.

For each case: the inputs (float64, drawn from a torch.Generator seeded by the case's name, so a
new case changes no other; rounded to 4 decimals so the file stays short and both sides read the
same doubles), the hyper-parameters (for the reader: the C++ side writes them again, in
tests/pytorch/cases_*.cpp, under the same case name), a random upstream gradient g shaped like
the first output, every output, and the gradient of sum(g * outputs[0]) with respect to each float
input, by torch.autograd. Integer inputs (targets, indices), Bool masks and batch_norm's running
statistics get no gradient (null).

PyTorch 1.13 lacks F.scaled_dot_product_attention and F.rms_norm: both are written below with
torch primitives, following the formulas their documentation gives (autograd still gives the
golden gradients); so is F.hardsigmoid, whose float64 gradient PyTorch 1.13 rounds.

File format: {"generator", "torch", "cases": [case, ...]}, one case per line; a case is {"name",
"params", "inputs": [tensor...], "grad_output": tensor, "outputs": [tensor...], "grads": [tensor
or null, one per input]}; a tensor is {"dtype": "f64" | "i64" | "bool", "shape", "data"} with data
flat in row-major order (NaN and infinities as the strings "nan", "inf", "-inf"). A loss reduced
to one value has PyTorch's shape [] (ember keeps its dims with size 1).
"""

import json
import math
import pathlib
import warnings
import zlib

import torch
import torch.nn.functional as F

OUT = pathlib.Path(__file__).with_name("pytorch_golden.json")
DECIMALS = 10_000.0

CASES = []


# ---- inputs: each is a function of the case's generator -------------------------------------


def reals(*shape, lo=-2.0, hi=2.0):
    def draw(gen):
        x = torch.rand(shape, generator=gen, dtype=torch.float64) * (hi - lo) + lo
        return torch.round(x * DECIMALS) / DECIMALS

    return draw


def distinct(*shape):
    """-2 + 1/16 * a permutation of 0..n-1: no ties, so every maximum has one index."""

    def draw(gen):
        n = math.prod(shape)
        return (torch.randperm(n, generator=gen).to(torch.float64) / 16 - 2).reshape(shape)

    return draw


def positives(*shape):
    return reals(*shape, lo=0.5, hi=2.0)


def away_from(kinks, *shape, lo=-2.0, hi=2.0, margin=0.1):
    """reals, each value within margin of a kink (where the function's derivative jumps) moved
    to margin from it, on its side: PyTorch's one-sided derivative there is a convention."""

    def draw(gen):
        x = reals(*shape, lo=lo, hi=hi)(gen)
        for k in kinks:
            x = torch.where((x - k).abs() < margin, torch.where(x >= k, k + margin, k - margin), x)
        return x

    return draw


def ints(values, shape):
    return lambda gen: torch.tensor(values, dtype=torch.int64).reshape(shape)


def bools(values, shape):
    return lambda gen: torch.tensor(values, dtype=torch.bool).reshape(shape)


# ---- running a case ----------------------------------------------------------------------------


def case(name, fn, inputs, params=None, no_grad=()):
    """Registers fn(*inputs) (a tensor or a tuple whose first element is differentiated); the
    float inputs whose positions are in no_grad get no gradient."""
    CASES.append((name, fn, inputs, params or {}, set(no_grad)))


def tensor_json(t):
    t = t.detach()
    if t.dtype == torch.bool:
        dtype, data = "bool", [bool(v) for v in t.flatten().tolist()]
    elif t.is_floating_point():
        dtype, data = "f64", [number_json(v) for v in t.flatten().tolist()]
    else:
        dtype, data = "i64", [int(v) for v in t.flatten().tolist()]
    return {"dtype": dtype, "shape": list(t.shape), "data": data}


def number_json(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def params_json(params):
    return {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}


def run(name, fn, inputs, params, no_grad):
    gen = torch.Generator().manual_seed(zlib.crc32(name.encode()))
    values = [draw(gen) for draw in inputs]
    leaves = [
        v.clone().requires_grad_(v.is_floating_point() and i not in no_grad)
        for i, v in enumerate(values)
    ]
    outputs = fn(*leaves)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    g = reals(*outputs[0].shape, lo=-1.0, hi=1.0)(gen)
    wanted = [leaf for leaf in leaves if leaf.requires_grad]
    grads = iter(torch.autograd.grad((outputs[0] * g).sum(), wanted))
    return {
        "name": name,
        "params": params_json(params),
        "inputs": [tensor_json(v) for v in values],
        "grad_output": tensor_json(g),
        "outputs": [tensor_json(o) for o in outputs],
        "grads": [tensor_json(next(grads)) if leaf.requires_grad else None for leaf in leaves],
    }


# ---- convolutions ------------------------------------------------------------------------------

CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
CONV_TRANSPOSE = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def conv_case(tag, x, w, bias, **options):
    n = len(x) - 2
    conv = CONV[n]
    inputs = [reals(*x), reals(*w)] + ([reals(w[0])] if bias else [])
    case(f"conv{n}d/{tag}", lambda x, w, b=None: conv(x, w, b, **options), inputs, options)


def conv_transpose_case(tag, x, w, bias, **options):
    n = len(x) - 2
    conv = CONV_TRANSPOSE[n]
    out_channels = w[1] * options.get("groups", 1)
    inputs = [reals(*x), reals(*w)] + ([reals(out_channels)] if bias else [])
    case(
        f"conv_transpose{n}d/{tag}", lambda x, w, b=None: conv(x, w, b, **options), inputs, options
    )


def conv_cases():
    conv_case("bias", (2, 3, 7), (4, 3, 3), True)
    conv_case("stride2_pad1_dil2", (1, 2, 9), (3, 2, 3), False, stride=2, padding=1, dilation=2)
    conv_case("groups2_bias", (1, 4, 6), (6, 2, 2), True, groups=2)
    conv_case("bias", (2, 2, 5, 5), (3, 2, 3, 3), True)
    conv_case(
        "stride_pad_dil", (1, 2, 7, 6), (2, 2, 3, 2), False,
        stride=(2, 1), padding=(1, 2), dilation=(1, 2),
    )
    conv_case("groups2_stride2", (1, 4, 5, 5), (4, 2, 2, 2), True, groups=2, stride=2)
    conv_case("depthwise_pad1", (1, 3, 4, 4), (3, 1, 3, 3), False, groups=3, padding=1)
    conv_case(
        "stride_pad_bias", (1, 2, 4, 4, 3), (2, 2, 2, 2, 2), True, stride=(1, 2, 1), padding=1
    )
    conv_case("groups2_dil2", (1, 2, 5, 5, 5), (2, 1, 2, 2, 2), False, groups=2, dilation=2)
    conv_transpose_case("bias", (2, 3, 4), (3, 2, 3), True)
    conv_transpose_case(
        "stride2_pad1_outpad1", (1, 2, 5), (2, 3, 3), False, stride=2, padding=1, output_padding=1
    )
    conv_transpose_case(
        "groups2_dil2_outpad1", (1, 4, 4), (4, 1, 2), True,
        stride=2, output_padding=1, groups=2, dilation=2,
    )
    conv_transpose_case("bias", (1, 2, 3, 3), (2, 3, 3, 3), True)
    conv_transpose_case(
        "stride_pad_outpad", (1, 2, 3, 4), (2, 2, 3, 2), False,
        stride=(2, 3), padding=(1, 0), output_padding=(1, 2),
    )
    conv_transpose_case(
        "groups2_dil_stride2", (1, 4, 3, 3), (4, 2, 2, 2), True, stride=2, groups=2, dilation=(2, 1)
    )
    conv_transpose_case(
        "stride2_pad1_outpad1", (1, 2, 2, 3, 2), (2, 2, 2, 2, 2), True,
        stride=2, padding=1, output_padding=1,
    )
    conv_transpose_case(
        "groups2_dil2", (1, 2, 2, 2, 2), (2, 1, 2, 2, 2), False, groups=2, dilation=2
    )


# ---- pooling -----------------------------------------------------------------------------------


def max_pool_case(tag, x, **options):
    n = len(x) - 2
    pool = {1: F.max_pool1d, 2: F.max_pool2d}[n]
    fn = lambda x: pool(x, return_indices=True, **options)  # noqa: E731
    case(f"max_pool{n}d/{tag}", fn, [distinct(*x)], options)


def avg_pool_case(tag, x, **options):
    n = len(x) - 2
    pool = {1: F.avg_pool1d, 2: F.avg_pool2d}[n]
    case(f"avg_pool{n}d/{tag}", lambda x: pool(x, **options), [reals(*x)], options)


def adaptive_case(op, tag, x, output_size):
    pool = {
        "adaptive_avg_pool1d": F.adaptive_avg_pool1d,
        "adaptive_avg_pool2d": F.adaptive_avg_pool2d,
        "adaptive_max_pool2d": lambda x, size: F.adaptive_max_pool2d(x, size, return_indices=True),
    }[op]
    draw = distinct(*x) if "max" in op else reals(*x)
    case(f"{op}/{tag}", lambda x: pool(x, output_size), [draw], {"output_size": output_size})


def pool_cases():
    max_pool_case("k3_s2", (2, 2, 8), kernel_size=3, stride=2)
    max_pool_case(
        "pad1_dil2_ceil", (1, 2, 10), kernel_size=3, stride=2, padding=1, dilation=2,
        ceil_mode=True,
    )
    max_pool_case("k2", (1, 2, 6, 6), kernel_size=2)
    max_pool_case(
        "pad_dil_ceil", (1, 2, 7, 6), kernel_size=(3, 2), stride=2, padding=1, dilation=(2, 1),
        ceil_mode=True,
    )
    max_pool_case("k2_s2_ceil", (1, 1, 5, 5), kernel_size=2, stride=2, ceil_mode=True)
    avg_pool_case("k3_s2", (2, 2, 7), kernel_size=3, stride=2)
    avg_pool_case(
        "pad1_ceil_include", (1, 2, 8), kernel_size=3, stride=2, padding=1, ceil_mode=True
    )
    avg_pool_case(
        "pad1_ceil_exclude", (1, 2, 8), kernel_size=3, stride=2, padding=1, ceil_mode=True,
        count_include_pad=False,
    )
    avg_pool_case("pad_include", (1, 2, 5, 6), kernel_size=(3, 2), stride=2, padding=1)
    avg_pool_case(
        "pad_ceil_exclude", (1, 2, 5, 6), kernel_size=(3, 2), stride=2, padding=1, ceil_mode=True,
        count_include_pad=False,
    )
    avg_pool_case(
        "pad_ceil_include", (1, 2, 6, 5), kernel_size=3, stride=2, padding=1, ceil_mode=True
    )
    avg_pool_case(
        "divisor_override", (1, 2, 5, 5), kernel_size=3, stride=2, padding=1, divisor_override=4
    )
    adaptive_case("adaptive_avg_pool1d", "7_to_3", (2, 2, 7), 3)
    adaptive_case("adaptive_avg_pool1d", "5_to_8", (1, 2, 5), 8)
    adaptive_case("adaptive_avg_pool2d", "7x5_to_3x2", (1, 2, 7, 5), (3, 2))
    adaptive_case("adaptive_avg_pool2d", "4x4_to_3x5", (1, 2, 4, 4), (3, 5))
    adaptive_case("adaptive_max_pool2d", "7x5_to_3x2", (1, 2, 7, 5), (3, 2))
    adaptive_case("adaptive_max_pool2d", "5x4_to_4x3", (2, 1, 5, 4), (4, 3))


# ---- interpolation -----------------------------------------------------------------------------


def interpolate_case(tag, x, mode, **options):
    fn = lambda x: F.interpolate(x, mode=mode, **options)  # noqa: E731
    case(f"interpolate/{mode}_{tag}", fn, [reals(*x)], {"mode": mode, **options})


def interpolate_cases():
    interpolate_case("size", (1, 2, 5), "nearest", size=8)
    interpolate_case("scale", (1, 2, 5), "nearest", scale_factor=1.7)
    interpolate_case("size_2d", (1, 2, 4, 5), "nearest", size=(3, 7))
    interpolate_case("scale_2d", (1, 1, 3, 4), "nearest", scale_factor=(2.0, 1.5))
    interpolate_case("size_3d", (1, 1, 2, 3, 2), "nearest", size=(3, 2, 4))
    interpolate_case("size", (1, 2, 5), "linear", size=8, align_corners=False)
    interpolate_case("size_align", (1, 2, 5), "linear", size=8, align_corners=True)
    interpolate_case("scale", (2, 1, 4), "linear", scale_factor=2.5, align_corners=False)
    interpolate_case("size", (1, 2, 3, 4), "bilinear", size=(5, 7), align_corners=False)
    interpolate_case("size_align", (1, 2, 3, 4), "bilinear", size=(5, 7), align_corners=True)
    interpolate_case(
        "scale_down", (1, 1, 6, 6), "bilinear", scale_factor=(1.5, 0.5), align_corners=False
    )
    interpolate_case("size", (1, 1, 4, 4), "bicubic", size=(6, 5), align_corners=False)
    interpolate_case("size_align", (1, 1, 4, 4), "bicubic", size=(6, 5), align_corners=True)
    interpolate_case("scale", (1, 2, 3, 3), "bicubic", scale_factor=2.0, align_corners=False)
    interpolate_case("size", (1, 1, 2, 3, 3), "trilinear", size=(3, 4, 5), align_corners=False)
    interpolate_case(
        "scale_align", (1, 1, 2, 2, 3), "trilinear", scale_factor=2.0, align_corners=True
    )


# ---- normalizations, attention, linear, embedding ----------------------------------------------


def rms_norm(x, normalized_shape, weight=None, eps=None):
    """F.rms_norm (PyTorch >= 2.4) by its documented formula: x / sqrt(mean(x^2) + eps) * weight
    over the trailing normalized_shape dims; eps None: the machine epsilon of x's dtype."""
    eps = torch.finfo(x.dtype).eps if eps is None else eps
    dims = tuple(range(-len(normalized_shape), 0))
    y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    return y if weight is None else y * weight


def attention(q, k, v, attn_mask=None, is_causal=False, scale=None):
    """F.scaled_dot_product_attention (PyTorch >= 2.0, dropout_p 0) by the reference
    implementation its documentation gives: softmax(q k^T * scale + bias) v, the bias -inf where a
    Bool mask is false or (causal) above the diagonal, or a Float mask itself."""
    L, S = q.size(-2), k.size(-2)
    scale = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    bias = torch.zeros(L, S, dtype=q.dtype)
    if is_causal:
        keep = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
        bias = bias.masked_fill(keep.logical_not(), float("-inf"))
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        bias = bias.masked_fill(attn_mask.logical_not(), float("-inf"))
    elif attn_mask is not None:
        bias = attn_mask + bias
    return torch.softmax(q @ k.transpose(-2, -1) * scale + bias, dim=-1) @ v


def batch_norm_training(x, rm, rv, w, b):
    y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1, eps=1e-5)
    return y, rm, rv  # F.batch_norm updated the running statistics in place


def module_cases():
    case("linear/bias", F.linear, [reals(2, 3, 4), reals(5, 4), reals(5)])
    case("linear/no_bias", F.linear, [reals(3, 4), reals(2, 4)])
    case(
        "embedding/repeated_indices",
        lambda w, i: F.embedding(i, w),
        [reals(5, 3), ints([4, 0, 4, 2, 1, 4], (2, 3))],
    )
    case(
        "layer_norm/affine",
        lambda x, w, b: F.layer_norm(x, (4,), w, b, 1e-5),
        [reals(2, 3, 4), reals(4), reals(4)],
        {"normalized_shape": [4], "eps": 1e-5},
    )
    case(
        "layer_norm/two_dims",
        lambda x: F.layer_norm(x, (3, 4), eps=1e-3),
        [reals(2, 3, 4)],
        {"normalized_shape": [3, 4], "eps": 1e-3},
    )
    case(
        "batch_norm/training",
        batch_norm_training,
        [reals(3, 2, 4), reals(2), positives(2), reals(2), reals(2)],
        {"training": True, "momentum": 0.1, "eps": 1e-5},
        no_grad=(1, 2),
    )
    case(
        "batch_norm/training_4d_no_stats",
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True, eps=1e-3),
        [reals(2, 3, 2, 2), reals(3), reals(3)],
        {"training": True, "eps": 1e-3},
    )
    case(
        "batch_norm/inference",
        lambda x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, training=False, eps=1e-5),
        [reals(3, 2, 4), reals(2), positives(2), reals(2), reals(2)],
        {"training": False, "eps": 1e-5},
        no_grad=(1, 2),
    )
    case(
        "group_norm/affine",
        lambda x, w, b: F.group_norm(x, 2, w, b, 1e-5),
        [reals(2, 4, 3), reals(4), reals(4)],
        {"groups": 2, "eps": 1e-5},
    )
    case(
        "group_norm/4d",
        lambda x: F.group_norm(x, 3, eps=1e-5),
        [reals(2, 6, 2, 2)],
        {"groups": 3, "eps": 1e-5},
    )
    case(
        "rms_norm/weight",
        lambda x, w: rms_norm(x, (4,), w, 1e-6),
        [reals(2, 3, 4), reals(4)],
        {"normalized_shape": [4], "eps": 1e-6},
    )
    case(
        "rms_norm/two_dims_default_eps",
        lambda x: rms_norm(x, (3, 4)),
        [reals(2, 3, 4)],
        {"normalized_shape": [3, 4], "eps": None},
    )
    qkv = [reals(2, 3, 4), reals(2, 5, 4), reals(2, 5, 3)]
    case("attention/plain", attention, qkv)
    case(
        "attention/float_mask",
        lambda q, k, v, m: attention(q, k, v, attn_mask=m),
        qkv + [reals(1, 3, 5)],
    )
    # Every query keeps at least one key.
    mask = [1, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1]
    mask += [0, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1]
    case(
        "attention/bool_mask",
        lambda q, k, v, m: attention(q, k, v, attn_mask=m),
        qkv + [bools(mask, (2, 3, 5))],
    )
    causal = lambda q, k, v: attention(q, k, v, is_causal=True)  # noqa: E731
    case("attention/causal", causal, qkv, {"is_causal": True})
    case(
        "attention/4d_scale",
        lambda q, k, v: attention(q, k, v, scale=0.3),
        [reals(1, 2, 3, 4), reals(1, 2, 3, 4), reals(1, 2, 3, 2)],
        {"scale": 0.3},
    )


# ---- losses ------------------------------------------------------------------------------------

REDUCTIONS = ("mean", "sum", "none")
TARGETS = [1, 4, 0, 2]  # class indices for 4 samples of 5 classes
IGNORED = [1, -100, 0, -100]  # two samples ignored (PyTorch's default ignore_index)


def loss_case(name, fn, inputs, reductions=REDUCTIONS, **options):
    """One case per reduction: name/reduction, fn called with reduction= and the options. A third
    input is a weight (class weight, pos_weight), which PyTorch does not differentiate."""
    for reduction in reductions:
        params = {"reduction": reduction, **options}
        case(f"{name}/{reduction}", lambda *x, p=params: fn(*x, **p), inputs, params, no_grad=(2,))


def class_loss_cases():
    logits = reals(4, 5)
    targets = ints(TARGETS, (4,))
    weight = positives(5)
    loss_case("cross_entropy", F.cross_entropy, [logits, targets])
    loss_case("cross_entropy/weight", F.cross_entropy, [logits, targets, weight])
    loss_case(
        "cross_entropy/smoothing", F.cross_entropy, [logits, targets], ("mean", "none"),
        label_smoothing=0.2,
    )
    loss_case(
        "cross_entropy/weight_smoothing", F.cross_entropy, [logits, targets, weight],
        ("mean", "sum"), label_smoothing=0.3,
    )
    loss_case("cross_entropy/ignore", F.cross_entropy, [logits, ints(IGNORED, (4,))])
    loss_case(
        "cross_entropy/ignore_weight_smoothing", F.cross_entropy,
        [logits, ints([3, 1, 3, 0], (4,)), weight], ("mean", "none"),
        ignore_index=3, label_smoothing=0.1,
    )
    probabilities = reals(4, 5, lo=0.0, hi=1.0)
    loss_case("cross_entropy/probabilities", F.cross_entropy, [logits, probabilities])
    loss_case(
        "cross_entropy/probabilities_weight_smoothing", F.cross_entropy,
        [logits, probabilities, weight], ("mean",), label_smoothing=0.25,
    )
    spatial_targets = ints([0, 2, -100, 1, 1, 2], (2, 3))
    loss_case(
        "cross_entropy/spatial_weight_ignore", F.cross_entropy,
        [reals(2, 3, 3), spatial_targets, positives(3)], ("mean", "none"),
    )
    loss_case(
        "cross_entropy/spatial_probabilities", F.cross_entropy,
        [reals(2, 3, 2, 2), reals(2, 3, 2, 2, lo=0.0, hi=1.0)], ("mean",),
    )
    log_probs = reals(4, 5, lo=-3.0, hi=-0.1)
    loss_case("nll_loss", F.nll_loss, [log_probs, targets])
    loss_case("nll_loss/weight", F.nll_loss, [log_probs, targets, weight])
    loss_case("nll_loss/ignore_weight", F.nll_loss, [log_probs, ints(IGNORED, (4,)), weight])
    loss_case("nll_loss/ignore_index2", F.nll_loss, [log_probs, targets], ("mean",), ignore_index=2)
    loss_case(
        "nll_loss/spatial_weight", F.nll_loss,
        [
            reals(2, 3, 2, 2, lo=-3.0, hi=-0.1),
            ints([0, 2, 1, 1, 2, 0, 0, 1], (2, 2, 2)),
            positives(3),
        ],
        ("mean",),
    )


def regression_loss_cases():
    pair = [reals(2, 3), reals(2, 3)]
    loss_case("mse_loss", F.mse_loss, pair)
    loss_case("l1_loss", F.l1_loss, pair)
    loss_case("huber_loss", F.huber_loss, pair, delta=1.0)
    loss_case("huber_loss/delta0.5", F.huber_loss, pair, ("mean",), delta=0.5)
    bce = [reals(2, 3, lo=-4.0, hi=4.0), reals(2, 3, lo=0.0, hi=1.0)]
    loss_case("bce_with_logits", F.binary_cross_entropy_with_logits, bce)
    loss_case(
        "bce_with_logits/pos_weight",
        lambda x, y, pw, **p: F.binary_cross_entropy_with_logits(x, y, pos_weight=pw, **p),
        bce + [positives(3)], ("mean", "none"),
    )
    kl = [reals(2, 3, lo=-2.0, hi=-0.1), positives(2, 3)]
    loss_case("kl_div", F.kl_div, kl, ("mean", "sum", "none", "batchmean"))
    loss_case(
        "kl_div/log_target", F.kl_div, [kl[0], reals(2, 3, lo=-2.0, hi=-0.1)],
        ("batchmean", "none"), log_target=True,
    )
    # Zero targets count 0 (xlogy); the target's gradient there is NaN in PyTorch, so only the
    # input's is checked.
    case(
        "kl_div/zero_targets/sum",
        lambda x, t: F.kl_div(x, t, reduction="sum"),
        [kl[0], lambda gen: torch.tensor([[0.5, 0.0, 0.25], [0.0, 1.0, 0.125]])],
        {"reduction": "sum"},
        no_grad=(1,),
    )


# ---- activations -------------------------------------------------------------------------------


def hard_sigmoid(x):
    """F.hardsigmoid by its documented formula, relu6(x + 3) / 6: PyTorch 1.13's CPU backward
    multiplies by the float32 constant 1.0f / 6 even in float64 (3e-8 off)."""
    return torch.clamp(x + 3, 0, 6) / 6


def activation_cases():
    kink0 = [away_from([0.0], 2, 3, 4)]
    case("relu", F.relu, kink0)
    case("leaky_relu/slope0.2", lambda x: F.leaky_relu(x, 0.2), kink0, {"negative_slope": 0.2})
    case("prelu/per_channel", F.prelu, kink0 + [reals(3)])
    case("gelu", F.gelu, [reals(2, 3, 4, lo=-4.0, hi=4.0)])
    case(
        "gelu_tanh",
        lambda x: F.gelu(x, approximate="tanh"),
        [reals(2, 3, 4, lo=-4.0, hi=4.0)],
        {"approximate": "tanh"},
    )
    wide = [reals(2, 3, 4, lo=-6.0, hi=6.0)]
    case("sigmoid", torch.sigmoid, wide)
    case("log_sigmoid", F.logsigmoid, wide)
    case("silu", F.silu, wide)
    # beta * x passes softplus's threshold 20 above x = 10.
    case(
        "softplus/beta2",
        lambda x: F.softplus(x, beta=2.0),
        [reals(2, 3, 4, lo=-12.0, hi=12.0)],
        {"beta": 2.0},
    )
    case("mish", F.mish, wide)
    case("elu/alpha0.5", lambda x: F.elu(x, 0.5), kink0, {"alpha": 0.5})
    case("selu", F.selu, kink0)
    case("celu/alpha1.5", lambda x: F.celu(x, 1.5), kink0, {"alpha": 1.5})
    kinks3 = [away_from([-3.0, 3.0], 2, 3, 4, lo=-5.0, hi=5.0)]
    case("hard_sigmoid", hard_sigmoid, kinks3)
    case("hard_swish", F.hardswish, kinks3)
    case("tanh", torch.tanh, wide)
    case("glu/dim1", lambda x: F.glu(x, 1), [reals(2, 4, 3)], {"dim": 1})
    case("softmax/dim1", lambda x: F.softmax(x, 1), [reals(2, 3, 4)], {"dim": 1})
    case("log_softmax/dim0", lambda x: F.log_softmax(x, 0), [reals(3, 4)], {"dim": 0})


def main():
    torch.set_default_dtype(torch.float64)
    # kl_div's "mean" (the cases ask for it on purpose) warns that "batchmean" is the KL math.
    warnings.filterwarnings("ignore", message="reduction: 'mean' divides the total loss")
    conv_cases()
    pool_cases()
    interpolate_cases()
    module_cases()
    class_loss_cases()
    regression_loss_cases()
    activation_cases()
    lines = [json.dumps(run(*c), separators=(",", ":")) for c in CASES]
    header = {"generator": "tests/pytorch/generate.py", "torch": torch.__version__.split("+")[0]}
    cases = ",\n".join(lines)
    text = json.dumps(header, separators=(",", ":"))[:-1] + ',"cases":[\n' + cases + "\n]}\n"
    OUT.write_text(text)
    print(f"{len(CASES)} cases, {len(text)} bytes → {OUT}")


if __name__ == "__main__":
    main()
