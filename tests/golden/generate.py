#!/usr/bin/env python3
"""Golden values for ember's ops, computed independently with NumPy (and math.erf).

Run from the repository root (Python 3 with NumPy):

    python3 tests/golden/generate.py

It writes tests/golden/golden.json, which tests/golden/golden_test.cpp reads; commit the
result. The test suite never runs this script.

Each case mirrors one case of the op table (tests/support/op_cases_*.cpp): the same name, the
same inputs in the same positions and the same argument names, so the C++ test runs it through
the table. Values are drawn here (not by the C++ generator) and stored with the expected
outputs. Semantics follow PyTorch where NumPy differs: integer division truncates toward zero,
remainder takes the divisor's sign, reductions keep the reduced dim and whole reductions have
shape [1], var is unbiased, sorts are stable, scatter/select_assign add duplicates up,
torch.chunk (not np.array_split) splits. Activations follow torch.nn.functional's definitions,
written here in NumPy (PyTorch is not installed where this runs): exact gelu with math.erf,
softplus linear where beta * x > 20, PyTorch's selu constants, hardsigmoid = relu6(x + 3) / 6.

File format: {"cases": [case, ...]}, one case per line; a case is {"name", "dtype", "args",
"inputs": [tensor...], "outputs": [tensor...]} and a tensor is {"dtype", "shape", "data"} with
data flat in row-major order; NaN and infinities are the strings "nan", "inf", "-inf".
"""

import json
import math
import pathlib
import zlib

import numpy as np

OUT = pathlib.Path(__file__).with_name("golden.json")

# The dtypes golden values exist for, per dtype class of the op table.
FLOAT = ["f32", "f64"]
INT = ["i32", "i64"]
NUMERIC = FLOAT + INT
BOOL = ["bool"]
ALL = NUMERIC + BOOL
HALF = ["f16", "bf16"]  # a few elementwise ops only; compared with a loose tolerance

INT_RANGE = {"i32": (-(2**31), 2**31 - 1), "i64": (-(2**63), 2**63 - 1)}
SHAPE = (2, 3, 4)  # op_cases.h kShape


def is_float(dtype):
    return dtype in ("f64", "f32", "f16", "bf16")


def is_int(dtype):
    return dtype in INT_RANGE


def round_bf16(x):
    """The nearest bfloat16 values (ties to even), as float64."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32).astype(np.float64)


def to_dtype(values, dtype):
    """values rounded to dtype's precision, kept as float64 / int64 / bool for computing."""
    values = np.asarray(values)
    if dtype == "bool":
        return values != 0
    if is_int(dtype):
        return values.astype(np.int64)
    if dtype == "bf16":
        return round_bf16(values)
    return values.astype({"f64": np.float64, "f32": np.float32, "f16": np.float16}[dtype]).astype(
        np.float64
    )


def widest_of_kind(dtype):
    return "f64" if is_float(dtype) else "i64" if is_int(dtype) else "bool"


def kind_value(dtype, real, integer):
    """A scalar argument of dtype's kind (op_cases.h kind_value)."""
    if is_float(dtype):
        return float(real)
    if dtype == "bool":
        return integer != 0
    return int(integer)


class In:
    """One input: drawn like op_values.h ValueSpec (lo, hi, step, nonzero, distinct), or given
    values. dtype: None for the case's dtype, a name, or a function of the case's dtype."""

    def __init__(self, shape=SHAPE, lo=-3.0, hi=3.0, step=0.0, nonzero=False, distinct=False,
                 dtype=None, given=None):
        self.shape, self.lo, self.hi, self.step = tuple(shape), lo, hi, step
        self.nonzero, self.distinct, self.dtype, self.given = nonzero, distinct, dtype, given

    def make(self, dtype, rng):
        dtype = self.dtype(dtype) if callable(self.dtype) else self.dtype or dtype
        if self.given is not None:
            values = np.array(self.given, dtype=np.float64)
        else:
            values = self.draw(dtype, rng)
        return to_dtype(values.reshape(self.shape), dtype), dtype

    def draw(self, dtype, rng):
        n = math.prod(self.shape)
        if dtype == "bool":
            return np.ones(n) if self.nonzero else rng.integers(0, 2, n).astype(np.float64)
        lo, step = self.lo, self.step
        if is_int(dtype):
            lo, step = math.ceil(lo), max(1, math.floor(step + 0.5))
        if self.distinct:
            return lo + (step or 1.0) * rng.permutation(n).astype(np.float64)
        if is_int(dtype) or step:
            grid = [lo + k * step for k in range(int((self.hi - lo) / step) + 1)]
            grid = [v for v in grid if not (self.nonzero and v == 0)]
            return np.array(grid)[rng.integers(0, len(grid), n)]
        # Reals on a 1/64 grid: exact in every float dtype's range used here, short in JSON.
        values = np.round((lo + (self.hi - lo) * rng.random(n)) * 64) / 64
        if self.nonzero:
            small = np.abs(values) < 0.5
            values[small] = np.copysign(0.5 + np.abs(values[small]), values[small])
        return values


CASES = []


def case(name, dtypes, inputs, expected, args=None):
    """Registers a case. inputs: [In]; args: a dict, or a function of the dtype giving one;
    expected(*arrays, args=..., dtype=...) returns the outputs, each an array (of the case's
    dtype, or bool when the array is) or an (array, dtype) pair."""
    CASES.append((name, dtypes, inputs, expected, args or {}))


# ---- helpers for the expected values ------------------------------------------------------


def trunc_div(a, b):
    """Integer division truncating toward zero (C++ and PyTorch), exact for small values."""
    return np.fix(np.asarray(a, dtype=np.float64) / b).astype(np.int64)


def true_div(a, b, dtype):
    return trunc_div(a, b) if is_int(dtype) else a / b


def whole(reduce):
    """A whole-tensor reduction: shape [1]."""
    return lambda x, args, dtype: reduce(x, None, dtype).reshape(1)


def along(reduce):
    """A reduction over args["dim"], keeping the dim."""
    return lambda x, args, dtype: reduce(x, args["dim"], dtype)


def mean(x, axis, dtype):
    if is_int(dtype):
        n = x.size if axis is None else x.shape[axis]
        return trunc_div(np.sum(x, axis=axis, keepdims=True), n)
    return np.mean(x, axis=axis, keepdims=True)


def first_arg(fn):
    """argmax / argmin over dim: NumPy returns the first index of the extreme, as ember does."""
    return lambda x, args, dtype: (fn(x, axis=args["dim"], keepdims=True), "i64")


def stable_order(x, axis, descending):
    """Indices of a stable sort; descending keeps equal elements in input order."""
    key = -x.astype(np.float64) if descending else x
    return np.argsort(key, axis=axis, kind="stable")


def sorted_pair(x, args):
    order = stable_order(x, args["dim"], args["descending"])
    return np.take_along_axis(x, order, axis=args["dim"]), order


def topk_pair(x, args):
    order = stable_order(x, args["dim"], True)
    order = np.take(order, range(args["k"]), axis=args["dim"])
    return np.take_along_axis(x, order, axis=args["dim"]), order


def py_slices(slices):
    return tuple(slice(start, end, step) for start, end, step in slices)


def slice_assigned(x, v, args):
    y = x.copy()
    y[py_slices(args["slices"])] = v
    return y


def expand_to(x, dims):
    """np.broadcast_to with -1 keeping x's size (x aligned to the end, as in broadcasting)."""
    padded = (1,) * (len(dims) - x.ndim) + x.shape
    return np.broadcast_to(x, tuple(p if d == -1 else d for d, p in zip(dims, padded)))


def torch_chunk(x, chunks, dim):
    """torch.chunk: pieces of ceil(n / chunks), so possibly fewer than chunks pieces."""
    size = -(-x.shape[dim] // chunks)
    return np.split(x, range(size, x.shape[dim], size), axis=dim)


def select_added(x, idx, v, args):
    """x with v added at idx along dim, duplicates accumulating (np.add.at; on bool arrays
    NumPy's add is a logical or)."""
    y = x.copy()
    np.add.at(np.moveaxis(y, args["dim"], 0), idx, np.moveaxis(v, args["dim"], 0))
    return y


def scatter_added(x, idx, v, args):
    y = x.copy()
    where = list(np.indices(idx.shape))
    where[args["dim"]] = idx
    np.add.at(y, tuple(where), v)
    return y


def cast_to(x, to):
    x = np.asarray(x, dtype=np.float64)
    if to == "bool":
        return x != 0, to
    return (np.fix(x) if is_int(to) else x), to


SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805


def softplus(x, beta=1.0):
    """torch.nn.functional.softplus (threshold 20)."""
    with np.errstate(over="ignore"):  # the exp overflows only where the linear branch is taken
        return np.where(beta * x > 20, x, np.log1p(np.exp(beta * x)) / beta)


def sigmoid(x):
    """1 / (1 + exp(-x)), as exp(-log(1 + exp(-x))) so that no exp overflows."""
    return np.exp(-np.logaddexp(0.0, -x))


def elu(x, alpha):
    """The exp is taken of min(x, 0) only: the positive side is x itself."""
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0)))


def relu6(x):
    return np.clip(x, 0.0, 6.0)


def softmax(x, dim):
    e = np.exp(x - np.max(x, axis=dim, keepdims=True))
    return e / np.sum(e, axis=dim, keepdims=True)


def log_softmax(x, dim):
    shifted = x - np.max(x, axis=dim, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))


def prelu(x, weight):
    """weight along dim 1 (one slope per channel, or one for all)."""
    slope = weight.reshape((1, -1) + (1,) * (x.ndim - 2))
    return np.where(x >= 0, x, slope * x)


def glu(x, dim):
    a, b = np.split(x, 2, axis=dim)
    return a * sigmoid(b)


# ---- the cases, in op-table order ---------------------------------------------------------


def creation_cases():
    shape = {"shape": [2, 3]}
    case("full", ALL, [], lambda args, dtype: np.full(args["shape"], args["value"]),
         lambda d: {"shape": [2, 3], "value": kind_value(d, 2.5, 7)})
    case("zeros", ALL, [], lambda args, dtype: np.zeros(args["shape"]), shape)
    case("ones", ALL, [], lambda args, dtype: np.ones(args["shape"]), shape)
    case("empty", ALL, [], lambda args, dtype: np.zeros(args["shape"]), shape)  # values unchecked
    arange = lambda args, dtype: np.arange(args["start"], args["end"], args["step"])
    case("arange", INT, [], arange, {"start": 1, "end": 10, "step": 3})
    case("arange/negative_step", INT, [], arange, {"start": 9, "end": 0, "step": -2})
    case("eye", ALL, [], lambda args, dtype: np.eye(args["n"]), {"n": 3})
    case("full_like", ALL, [In()], lambda x, args, dtype: np.full(x.shape, args["value"]),
         lambda d: {"value": kind_value(d, -1.5, 5)})
    for name in ("from_data", "to_device", "with_autodiff"):
        case(name, ALL, [In()], lambda x, args, dtype: x)


def unary_cases():
    def unary(name, dtypes, fn, **values):
        case(name, dtypes, [In(**values)], lambda x, args, dtype: fn(x))

    unary("neg", NUMERIC + HALF, np.negative)
    unary("abs", NUMERIC, np.abs)
    unary("sign", NUMERIC, np.sign, step=0.5)
    unary("exp", FLOAT + HALF, np.exp)
    unary("log", FLOAT, np.log, lo=0.1, hi=5.0)
    unary("log1p", FLOAT, np.log1p, lo=-0.5, hi=3.0)
    unary("sqrt", FLOAT + HALF, np.sqrt, lo=0.0, hi=5.0)
    unary("sin", FLOAT, np.sin)
    unary("cos", FLOAT, np.cos)
    unary("tan", FLOAT, np.tan, lo=-1.2, hi=1.2)
    unary("tanh", FLOAT + HALF, np.tanh)
    unary("erf", FLOAT, np.vectorize(math.erf), lo=-2.0, hi=2.0)
    unary("logit", FLOAT, lambda x: np.log(x / (1.0 - x)), lo=0.05, hi=0.95)
    unary("recip", FLOAT, lambda x: 1.0 / x, nonzero=True)
    unary("floor", FLOAT, np.floor)
    unary("ceil", FLOAT, np.ceil)
    halves = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -3.5, 3.5, -0.7, 0.3, 1.2, 2.49]
    case("round", FLOAT, [In((2, 6), given=halves)], lambda x, args, dtype: np.round(x))
    special = [math.nan, 1.0, -math.inf, math.inf, 0.0, -2.5]
    case("is_nan", FLOAT, [In((2, 3), given=special)], lambda x, args, dtype: np.isnan(x))
    case("is_inf", FLOAT, [In((2, 3), given=special)], lambda x, args, dtype: np.isinf(x))
    unary("bool_not", BOOL, np.logical_not)


def binary_cases():
    def binary(name, dtypes, fn, lhs=None, rhs=None):
        inputs = [In(SHAPE, **(lhs or {})), In((3, 1), **(rhs or {}))]
        case(name, dtypes, inputs, lambda a, b, args, dtype: fn(a, b, dtype))

    binary("add", NUMERIC + HALF, lambda a, b, d: a + b)
    # The rhs in the widest dtype of the kind (the table draws it in the dtype, then converts).
    case("add/promote", NUMERIC, [In(SHAPE), In((3, 1), dtype=widest_of_kind)],
         lambda a, b, args, dtype: (a + b, widest_of_kind(dtype)))
    binary("sub", NUMERIC, lambda a, b, d: a - b, {"lo": 4.0, "hi": 9.0}, {"lo": -4.0, "hi": 4.0})
    binary("mul", NUMERIC + HALF, lambda a, b, d: a * b)
    dividend, divisor = {"lo": -9.0, "hi": 9.0}, {"lo": -4.0, "hi": 4.0, "nonzero": True}
    binary("div", NUMERIC + HALF, true_div, dividend, divisor)
    binary("remainder", NUMERIC, lambda a, b, d: np.remainder(a, b), dividend, divisor)
    binary("powf", FLOAT, lambda a, b, d: np.power(a, b), {"lo": 0.5, "hi": 2.5},
           {"lo": -2.0, "hi": 2.0})
    ties = {"step": 0.5}
    binary("maximum", NUMERIC, lambda a, b, d: np.maximum(a, b), ties, ties)
    binary("minimum", NUMERIC, lambda a, b, d: np.minimum(a, b), ties, ties)
    binary("bool_and", BOOL, lambda a, b, d: a & b)
    binary("bool_or", BOOL, lambda a, b, d: a | b)
    binary("bool_xor", BOOL, lambda a, b, d: a ^ b)


def scalar_cases():
    def scalar_op(name, fn, real, integer, lo=-5.0, hi=5.0, nonzero=False):
        case(name, NUMERIC, [In(lo=lo, hi=hi, nonzero=nonzero)],
             lambda x, args, dtype: fn(x, args["scalar"], dtype),
             lambda d: {"scalar": kind_value(d, real, integer)})

    scalar_op("add_scalar", lambda x, s, d: x + s, 1.5, 3)
    scalar_op("sub_scalar", lambda x, s, d: x - s, 1.5, 2, lo=2.0, hi=9.0)
    scalar_op("rsub_scalar", lambda x, s, d: s - x, 2.5, 10)
    scalar_op("mul_scalar", lambda x, s, d: x * s, -1.5, 3)
    scalar_op("div_scalar", lambda x, s, d: true_div(x, s, d), 1.5, 2, lo=-9.0, hi=9.0)
    scalar_op("rdiv_scalar", lambda x, s, d: true_div(s, x, d), 2.5, 7, lo=-4.0, hi=4.0,
              nonzero=True)
    scalar_op("remainder_scalar", lambda x, s, d: np.remainder(x, s), 1.5, 4, lo=-9.0, hi=9.0)
    power = lambda x, args, dtype: np.power(x, args["exponent"])
    case("powf_scalar", FLOAT, [In(lo=0.5, hi=3.0)], power, {"exponent": 1.5})
    case("powi_scalar", NUMERIC, [In()], power, {"exponent": 3})
    bounds = lambda d: {"min": kind_value(d, -1.5, 1), "max": kind_value(d, 2.0, 4)}
    case("clamp", NUMERIC, [In(lo=-5.0, hi=5.0)],
         lambda x, args, dtype: np.clip(x, args["min"], args["max"]), bounds)
    case("clamp_min", NUMERIC, [In(lo=-5.0, hi=5.0)],
         lambda x, args, dtype: np.maximum(x, args["min"]), lambda d: {"min": bounds(d)["min"]})
    case("clamp_max", NUMERIC, [In(lo=-5.0, hi=5.0)],
         lambda x, args, dtype: np.minimum(x, args["max"]), lambda d: {"max": bounds(d)["max"]})


def compare_cases():
    ties = {"lo": -2.0, "hi": 2.0, "step": 0.5}
    for name, fn in [("equal", np.equal), ("not_equal", np.not_equal), ("greater", np.greater),
                     ("greater_equal", np.greater_equal), ("lower", np.less),
                     ("lower_equal", np.less_equal)]:
        case(name, ALL, [In(SHAPE, **ties), In((3, 4), **ties)],
             lambda a, b, args, dtype, fn=fn: fn(a, b))
        case(name + "_elem", ALL, [In(SHAPE, **ties)],
             lambda x, args, dtype, fn=fn: fn(x, args["scalar"]),
             lambda d: {"scalar": kind_value(d, 0.5, 1)})
    mask = In((3, 4), dtype="bool")
    case("mask_where", ALL, [In(), mask, In(lo=5.0, hi=9.0)],
         lambda x, m, v, args, dtype: np.where(m, v, x))
    case("mask_fill", ALL, [In(), mask], lambda x, m, args, dtype: np.where(m, args["value"], x),
         lambda d: {"value": kind_value(d, -1.5, 9)})
    case("where", ALL, [In((2, 1, 4), dtype="bool"), In(), In((3, 4), lo=5.0, hi=9.0)],
         lambda c, a, b, args, dtype: np.where(c, a, b))
    for to in ("f64", "i32", "bool"):
        case("cast/" + to, ALL, [In(lo=-4.0, hi=4.0, step=0.25)],
             lambda x, args, dtype: cast_to(x, args["dtype"]), {"dtype": to})


def reduce_cases():
    steps = {"lo": -2.0, "hi": 2.0, "step": 1.0}
    factors = {"lo": -2.0, "hi": 2.0, "nonzero": True}
    sum_ = lambda x, axis, d: np.sum(x, axis=axis, keepdims=True)
    prod = lambda x, axis, d: np.prod(x, axis=axis, keepdims=True)
    max_ = lambda x, axis, d: np.max(x, axis=axis, keepdims=True)
    min_ = lambda x, axis, d: np.min(x, axis=axis, keepdims=True)
    any_ = lambda x, axis, d: np.any(x != 0, axis=axis, keepdims=True)
    all_ = lambda x, axis, d: np.all(x != 0, axis=axis, keepdims=True)
    case("sum", NUMERIC, [In()], whole(sum_))
    case("sum_dim", NUMERIC, [In()], along(sum_), {"dim": 1})
    case("mean", NUMERIC, [In()], whole(mean))
    case("mean_dim", NUMERIC, [In()], along(mean), {"dim": -1})
    case("prod", NUMERIC, [In((2, 3), **factors)], whole(prod))
    case("prod_dim", NUMERIC, [In(**factors)], along(prod), {"dim": 1})
    case("max", ALL, [In()], whole(max_))
    case("max_dim", ALL, [In()], along(max_), {"dim": -1})
    case("min", ALL, [In()], whole(min_))
    case("min_dim", ALL, [In()], along(min_), {"dim": 1})
    case("argmax", NUMERIC, [In(**steps)], first_arg(np.argmax), {"dim": 1})
    case("argmin", NUMERIC, [In(**steps)], first_arg(np.argmin), {"dim": -1})
    variance = lambda x, args, dtype: np.var(x, axis=args["dim"], ddof=args["correction"],
                                             keepdims=True)
    case("var", FLOAT, [In()], variance, {"dim": 1, "correction": 1})
    case("var/population", FLOAT, [In()], variance, {"dim": 1, "correction": 0})
    case("any", ALL, [In(**steps)], whole(any_))
    case("any_dim", ALL, [In(**steps)], along(any_), {"dim": 1})
    case("all", ALL, [In(**steps)], whole(all_))
    case("all/nonzero", ALL, [In(nonzero=True, **steps)], whole(all_))
    case("all_dim", ALL, [In(**steps)], along(all_), {"dim": 1})
    matmul = lambda a, b, args, dtype: np.matmul(a, b)
    case("matmul", NUMERIC, [In((2, 3, 4)), In((2, 4, 5))], matmul)
    case("matmul/broadcast", NUMERIC, [In((2, 1, 3, 4)), In((1, 3, 4, 2))], matmul)


def layout_cases():
    def layout(name, fn, args=None, shape=SHAPE):
        case(name, ALL, [In(shape)], lambda x, args, dtype: fn(x, args), args)

    layout("reshape", lambda x, a: x.reshape(a["dims"]), {"dims": [4, -1]})
    layout("permute", lambda x, a: np.transpose(x, a["axes"]), {"axes": [2, 0, 1]})
    layout("transpose", lambda x, a: np.swapaxes(x, -1, -2))
    layout("swap_dims", lambda x, a: np.swapaxes(x, a["dim0"], a["dim1"]), {"dim0": 0, "dim1": 2})
    layout("flip", lambda x, a: np.flip(x, a["axes"]), {"axes": [0, 2]})
    layout("expand", lambda x, a: expand_to(x, a["dims"]), {"dims": [2, -1, 4]}, (3, 1))
    take = lambda x, a: x[py_slices(a["slices"])]
    layout("slice", take, {"slices": [[1, None, 1], [0, 3, 2], [-3, -1, 1]]})
    layout("slice/negative_step", take, {"slices": [[None, None, 1], [None, None, -1], [3, 0, -2]]})
    assign = lambda x, v, args, dtype: slice_assigned(x, v, args)
    case("slice_assign", ALL, [In(), In((2, 2, 4))], assign, {"slices": [[0, 2, 1], [1, 3, 1]]})
    case("slice_assign/negative_step", ALL, [In(), In((2, 2, 4))], assign,
         {"slices": [[None, None, -1], [2, None, -2]]})
    layout("narrow", lambda x, a: np.take(x, range(a["start"], a["start"] + a["length"]),
                                          axis=a["dim"]), {"dim": 2, "start": 1, "length": 2})
    layout("squeeze", lambda x, a: np.squeeze(x, a["dim"]), {"dim": 1}, (2, 1, 4))
    layout("squeeze_all", lambda x, a: np.squeeze(x), None, (1, 3, 1, 4))
    layout("unsqueeze_dim", lambda x, a: np.expand_dims(x, a["dim"]), {"dim": 1})
    layout("unsqueeze_dim/last", lambda x, a: np.expand_dims(x, a["dim"]), {"dim": -1})
    layout("unsqueeze", lambda x, a: x.reshape((1,) * (a["rank"] - x.ndim) + x.shape),
           {"rank": 5})
    layout("repeat_dim", lambda x, a: np.concatenate([x] * a["times"], axis=a["dim"]),
           {"dim": 1, "times": 2})
    case("cat", ALL, [In(), In((2, 2, 4))],
         lambda a, b, args, dtype: np.concatenate([a, b], axis=args["dim"]), {"dim": 1})
    case("stack", ALL, [In((3, 4))] * 3,
         lambda a, b, c, args, dtype: np.stack([a, b, c], axis=args["dim"]), {"dim": 1})
    size = lambda x, a: range(a["split_size"], x.shape[a["dim"]], a["split_size"])
    case("split", ALL, [In((2, 5, 3))],
         lambda x, args, dtype: np.split(x, size(x, args), axis=args["dim"]),
         {"split_size": 2, "dim": 1})
    case("chunk", ALL, [In((6, 2))],
         lambda x, args, dtype: torch_chunk(x, args["chunks"], args["dim"]),
         {"chunks": 4, "dim": 0})


def index_cases():
    in_dim1 = {"lo": 0.0, "hi": 2.0, "dtype": "i64"}
    case("select", ALL, [In(), In((4,), dtype="i64", given=[3, 0, 3, 1])],
         lambda x, idx, args, dtype: np.take(x, idx, axis=args["dim"]), {"dim": 2})
    case("select_assign", ALL, [In(), In((3,), dtype="i64", given=[1, 0, 1]), In()],
         lambda x, idx, v, args, dtype: select_added(x, idx, v, args), {"dim": 1})
    case("gather", ALL, [In(), In((2, 2, 4), **in_dim1)],
         lambda x, idx, args, dtype: np.take_along_axis(x, idx, axis=args["dim"]), {"dim": 1})
    case("scatter", ALL, [In(), In((2, 2, 4), **in_dim1), In((2, 2, 4))],
         lambda x, idx, v, args, dtype: scatter_added(x, idx, v, args), {"dim": 1})


def sort_cases():
    ties = In(lo=-2.0, hi=2.0, step=1.0)
    distinct = In(lo=-6.0, step=0.5, distinct=True)
    for suffix, args in [("", {"dim": 1, "descending": False}),
                         ("/descending", {"dim": -1, "descending": True})]:
        case("sort" + suffix, NUMERIC, [ties], lambda x, args, dtype: sorted_pair(x, args)[0], args)
        case("sort_with_indices" + suffix, NUMERIC, [ties],
             lambda x, args, dtype: [sorted_pair(x, args)[0], (sorted_pair(x, args)[1], "i64")],
             args)
        case("argsort" + suffix, NUMERIC, [ties],
             lambda x, args, dtype: (stable_order(x, args["dim"], args["descending"]), "i64"),
             args)
    case("topk", NUMERIC, [distinct], lambda x, args, dtype: topk_pair(x, args)[0],
         {"k": 2, "dim": -1})
    case("topk_with_indices", NUMERIC, [distinct],
         lambda x, args, dtype: [topk_pair(x, args)[0], (topk_pair(x, args)[1], "i64")],
         {"k": 3, "dim": 1})
    cumulative = lambda fn: lambda x, args, dtype: fn(x, axis=args["dim"])
    case("cumsum", NUMERIC, [In()], cumulative(np.cumsum), {"dim": 1})
    case("cumprod", NUMERIC, [In(lo=-2.0, hi=2.0, nonzero=True)], cumulative(np.cumprod),
         {"dim": 1})
    case("cummax", NUMERIC, [In()], cumulative(np.maximum.accumulate), {"dim": 1})
    case("cummin", NUMERIC, [In()], cumulative(np.minimum.accumulate), {"dim": 1})
    case("one_hot", INT, [In((2, 3), lo=0.0, hi=3.0)],
         lambda x, args, dtype: (np.eye(args["num_classes"])[x], "f32"),
         {"num_classes": 4, "kind": "float"})


def activation_cases():
    dtypes = FLOAT + HALF
    wide, past_three = {"lo": -25.0, "hi": 25.0}, {"lo": -5.0, "hi": 5.0}

    def activation(name, fn, values=None, args=None):
        case(name, dtypes, [In(**(values or {}))], lambda x, args, dtype: fn(x, args), args)

    erf = np.vectorize(math.erf)
    k = math.sqrt(2.0 / math.pi)
    activation("relu", lambda x, a: np.maximum(x, 0.0))
    activation("leaky_relu", lambda x, a: np.where(x > 0, x, a["negative_slope"] * x), None,
               {"negative_slope": 0.2})
    weight = {"lo": 0.0, "hi": 1.0}
    case("prelu", dtypes, [In(), In((3,), **weight)], lambda x, w, args, dtype: prelu(x, w))
    case("prelu/shared", dtypes, [In(), In((1,), **weight)],
         lambda x, w, args, dtype: prelu(x, w))
    activation("gelu", lambda x, a: 0.5 * x * (1.0 + erf(x / math.sqrt(2.0))))
    activation("gelu_tanh", lambda x, a: 0.5 * x * (1.0 + np.tanh(k * (x + 0.044715 * x**3))))
    activation("sigmoid", lambda x, a: sigmoid(x), wide)
    activation("log_sigmoid", lambda x, a: -np.logaddexp(0.0, -x), wide)
    activation("silu", lambda x, a: x * sigmoid(x))
    activation("softplus", lambda x, a: softplus(x, a["beta"]), wide, {"beta": 1.0})
    activation("softplus/beta", lambda x, a: softplus(x, a["beta"]), {"lo": -12.0, "hi": 12.0},
               {"beta": 2.0})
    activation("mish", lambda x, a: x * np.tanh(softplus(x)))
    activation("elu", lambda x, a: elu(x, a["alpha"]), None, {"alpha": 0.5})
    activation("selu", lambda x, a: SELU_SCALE * elu(x, SELU_ALPHA))
    activation("celu", lambda x, a: np.maximum(x, 0.0) +
               np.minimum(0.0, a["alpha"] * np.expm1(x / a["alpha"])), None, {"alpha": 2.0})
    activation("hard_sigmoid", lambda x, a: relu6(x + 3.0) / 6.0, past_three)
    activation("hard_swish", lambda x, a: x * relu6(x + 3.0) / 6.0, past_three)
    activation("glu", lambda x, a: glu(x, a["dim"]), None, {"dim": -1})
    activation("softmax", lambda x, a: softmax(x, a["dim"]), {"lo": -10.0, "hi": 10.0},
               {"dim": 1})
    activation("softmax/last", lambda x, a: softmax(x, a["dim"]), None, {"dim": -1})
    activation("log_softmax", lambda x, a: log_softmax(x, a["dim"]), {"lo": -10.0, "hi": 10.0},
               {"dim": -1})
    activation("log_softmax/first", lambda x, a: log_softmax(x, a["dim"]), None, {"dim": 0})


# ---- running the cases and writing JSON ---------------------------------------------------


def encode_value(v, dtype):
    if dtype == "bool":
        return bool(v)
    if is_int(dtype):
        return int(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    # Digits enough for the dtype: keeps the file small without adding error.
    return float(f"{v:.17g}" if dtype == "f64" else f"{v:.9g}")


def encode(values, dtype):
    values = np.asarray(values)
    return {"dtype": dtype, "shape": list(values.shape),
            "data": [encode_value(v, dtype) for v in values.reshape(-1).tolist()]}


def output(result, dtype):
    """An expected output: (array, dtype) or an array of the case's dtype (bool if it is)."""
    values, out_dtype = result if isinstance(result, tuple) else (
        result, "bool" if np.asarray(result).dtype == bool else dtype)
    values = np.asarray(values)
    if is_float(out_dtype):
        # Kept in f64, not rounded to out_dtype: the test compares in f64 with out_dtype's
        # tolerance, and a second rounding would only add error.
        return encode(values.astype(np.float64), out_dtype)
    if is_int(out_dtype):
        lo, hi = INT_RANGE[out_dtype]
        assert np.all(values == np.round(values)), "an integer output is not integral"
        assert values.min() >= lo and values.max() <= hi, "an integer output overflows"
    return encode(to_dtype(values, out_dtype), out_dtype)


def run(name, dtype, inputs, expected, args):
    args = args(dtype) if callable(args) else args
    rng_seed = zlib.crc32(f"{name}:{dtype}".encode())
    arrays = [spec.make(dtype, np.random.default_rng(rng_seed + i)) for i, spec in
              enumerate(inputs)]
    results = expected(*[a for a, _ in arrays], args=args, dtype=dtype)
    results = results if isinstance(results, list) else [results]
    return {"name": name, "dtype": dtype, "args": args,
            "inputs": [encode(a, d) for a, d in arrays],
            "outputs": [output(r, dtype) for r in results]}


def main():
    for family in (creation_cases, unary_cases, binary_cases, scalar_cases, compare_cases,
                   reduce_cases, layout_cases, index_cases, sort_cases, activation_cases):
        family()
    lines = [json.dumps(run(name, dtype, inputs, expected, args), separators=(",", ":"))
             for name, dtypes, inputs, expected, args in CASES for dtype in dtypes]
    OUT.write_text('{"generator":"tests/golden/generate.py","cases":[\n' + ",\n".join(lines) +
                   "\n]}\n")
    print(f"wrote {len(lines)} cases, {OUT.stat().st_size} bytes, to {OUT}")


if __name__ == "__main__":
    main()
