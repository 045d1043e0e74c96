"""Prints one JSON line naming the PyTorch this Python imports and the parts of its build that
decide its CPU speed, for the results file's header (bench_driver.py's check_peer runs it in the
peer's thread environment, so the thread counts are the ones the timed runs get).

    {"version", "origin", "mkl", "mkldnn", "blas", "capability", "libraries", "threads"}
"""

import json
import os
import re
import sys

import torch

import common

DEBIAN_SITE = "/usr/lib/python3/dist-packages/"


def origin():
    if torch.__file__.startswith(DEBIAN_SITE):
        return "Debian python3-torch"
    if sys.prefix != sys.base_prefix:
        return f"pip, venv {sys.prefix}"
    return os.path.dirname(os.path.dirname(torch.__file__))


def build_setting(name):
    """A NAME=value of torch.__config__.show()'s build settings (BLAS_INFO: mkl, open, ...)."""
    found = re.search(rf"\b{name}=([^,\s]+)", torch.__config__.show())
    return found.group(1) if found else "unknown"


def capability():
    """The SIMD level ATen's CPU kernels dispatch to (AVX2, AVX512, ...); torch.backends.cpu
    has it from 2.1, so 1.13 says unknown."""
    cpu = getattr(torch.backends, "cpu", None)
    return cpu.get_cpu_capability() if cpu else "unknown"


def parallel_lines():
    """parallel_info()'s library lines (OpenMP, MKL, oneDNN versions, the parallel backend)
    and its thread-count lines, apart."""
    libraries, threads = [], []
    for line in torch.__config__.parallel_info().splitlines():
        text = line.strip()
        if re.match(r"\w+::get_num_threads\(\)|\w+_get_max_threads\(\)", text):
            threads.append(text.replace(" : ", " = "))
        elif text.startswith(("OpenMP", "Intel", "ATen parallel backend")):
            libraries.append(re.sub(r" \(Git Hash \w+\)| for Intel\(R\) 64 .*", "", text))
    return libraries, threads


def main():
    common.set_threads(int(sys.argv[1]))
    libraries, threads = parallel_lines()
    print(json.dumps({
        "version": torch.__version__, "origin": origin(),
        "mkl": torch.backends.mkl.is_available(), "mkldnn": torch.backends.mkldnn.is_available(),
        "blas": build_setting("BLAS_INFO"), "capability": capability(),
        "libraries": libraries, "threads": threads,
    }))


if __name__ == "__main__":
    main()
