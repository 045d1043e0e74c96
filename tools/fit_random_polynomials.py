#!/usr/bin/env python3
"""Fits the f32 polynomials of src/ir/random_polynomials.h: ln(1 + f) and cos/sin(2 pi t) on
their reduced ranges, the coefficients of the normal distribution's Box-Muller (docs/random.md),
and the constants (ln 2, 2 pi) split into two f32s.

Run once, from anywhere (Python 3 with mpmath, Debian's python3-mpmath):

    python3 tools/fit_random_polynomials.py

It prints the C++ constants to paste into src/ir/random_polynomials.h and, for each polynomial,
its error relative to the function in units of 2^-24 (one f32 ulp of a value in [1, 2)): with exact
coefficients, and with the f32 coefficients actually used, evaluated exactly. The f32
evaluation adds its own roundings; tests/ir/random_test.cpp measures the end result.

Method: a weighted minimax (relative error) fit by Lawson's algorithm (iteratively reweighted
least squares) on Chebyshev nodes, in 128-bit arithmetic. Coefficients are then rounded to f32
one at a time, highest power first, refitting the lower ones after each rounding so that they
absorb its error.
"""

import struct

import mpmath as mp

mp.mp.prec = 128
ULP = mp.mpf(2) ** -24
NODES = 400
ITERATIONS = 150


def to_f32(x):
    """x rounded to the nearest f32 (via double: exact enough for a coefficient)."""
    return mp.mpf(struct.unpack("f", struct.pack("f", float(x)))[0])


def chebyshev_nodes(a, b):
    return [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (2 * j + 1) / (2 * NODES))
            for j in range(NODES)]


def lawson(rows, rhs):
    """c minimizing max_j |rhs_j - rows_j . c|: least squares, reweighted by the residuals."""
    n = len(rows[0])
    weights = [mp.mpf(1)] * len(rows)
    for _ in range(ITERATIONS):
        normal = mp.matrix(n, n)
        projected = mp.matrix(n, 1)
        for row, y, w in zip(rows, rhs, weights):
            for i in range(n):
                projected[i] += w * row[i] * y
                for k in range(n):
                    normal[i, k] += w * row[i] * row[k]
        c = mp.lu_solve(normal, projected)
        residuals = [y - sum(c[i] * row[i] for i in range(n)) for row, y in zip(rows, rhs)]
        weights = [w * abs(r) for w, r in zip(weights, residuals)]
        total = sum(weights)
        weights = [w / total for w in weights]
    return [c[i] for i in range(n)], max(abs(r) for r in residuals)


def fit(xs, target, weight, powers):
    """Coefficients of sum c_p x^p ~ target(x), minimizing max |weight(x) (target - sum)|, rounded
    to f32; the error with exact coefficients and with the rounded ones."""
    rounded = {}
    exact_error = None
    while len(rounded) < len(powers):
        free = [p for p in powers if p not in rounded]
        rows = [[weight(x) * x**p for p in free] for x in xs]
        rhs = [weight(x) * (target(x) - sum(c * x**p for p, c in rounded.items())) for x in xs]
        coefficients, error = lawson(rows, rhs)
        exact_error = error if exact_error is None else exact_error
        rounded[free[-1]] = to_f32(coefficients[-1])
    rounded_error = max(abs(weight(x) * (target(x) - sum(c * x**p for p, c in rounded.items())))
                        for x in xs)
    return [rounded[p] for p in powers], exact_error, rounded_error


def cpp_float(x):
    """x (an f32 value) as a C++ hex float literal."""
    mantissa, exponent = float(x).hex().split("p")
    return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}f"


def report(name, powers_of, result):
    coefficients, exact_error, rounded_error = result
    print(f"// {name}: {powers_of}; max relative error {mp.nstr(exact_error / ULP, 3)} x 2^-24 "
          f"(exact coefficients), {mp.nstr(rounded_error / ULP, 3)} x 2^-24 (these)")
    print("{" + ", ".join(cpp_float(c) for c in coefficients) + "}\n")


def print_split(name, x):
    """x as the sum of two f32s, to twice f32's precision."""
    high = to_f32(x)
    print(f"// {name} = {cpp_float(high)} + {cpp_float(to_f32(x - high))}")


def main():
    # ln(1 + f) = f + f^2 P(f), for 1 + f in [sqrt(1/2), sqrt(2)): the mantissa after reduction.
    log_nodes = [f for f in chebyshev_nodes(mp.sqrt(0.5) - 1, mp.sqrt(2) - 1) if f != 0]
    report("ln(1 + f) - f", "f^2 .. f^10",
           fit(log_nodes, lambda f: mp.log1p(f) - f, lambda f: 1 / abs(mp.log1p(f)),
               list(range(2, 11))))

    # t in [-1/8, 1/8] turns, x = t^2 in [0, 1/64].
    angle_nodes = chebyshev_nodes(mp.mpf(0), mp.mpf(1) / 64)
    cos = lambda x: mp.cos(2 * mp.pi * mp.sqrt(x))
    report("cos(2 pi t) - 1", "x .. x^4 (x = t^2)",
           fit(angle_nodes, lambda x: cos(x) - 1, lambda x: 1 / cos(x), list(range(1, 5))))
    # sin(2 pi t) = 2 pi t + t x S(x): 2 pi in two f32s (its f32 rounding alone is 0.47 x 2^-24).
    sin_over_t = lambda x: mp.sin(2 * mp.pi * mp.sqrt(x)) / mp.sqrt(x)
    report("sin(2 pi t) / t - 2 pi", "x .. x^3 (x = t^2)",
           fit(angle_nodes, lambda x: sin_over_t(x) - 2 * mp.pi, lambda x: 1 / sin_over_t(x),
               list(range(1, 4))))

    print_split("ln 2", mp.log(2))
    print_split("2 pi", 2 * mp.pi)


if __name__ == "__main__":
    main()
