"""What the comparison drivers (run_cnn_train.py, run_ops.py) share: their common flags, the
thread environment of each side, medians, the markdown table, and the results file with the
machine, the versions and the command (shared/BENCHMARKING.md says what a figure needs).

The drivers need only the standard library. The PyTorch peer is chosen with --peer: "pypi",
PyTorch 2.x from PyPI (MKL, oneDNN) in the venv $EMBER_PEER_VENV (default /opt/ember-peer-torch),
the PyTorch users install and the default where it imports; or "debian", Debian's python3-torch
1.13 under /usr/bin/python3. bench/install-peer installs the first, with --debian the second.
"""

import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
PEER_DIR = os.path.join(BENCH_DIR, "peer_torch")
PEER_VENV = os.environ.get("EMBER_PEER_VENV", "/opt/ember-peer-torch")
# Debian's interpreter by its full path: a pyenv python3 first on PATH does not see Debian's torch.
PEERS = {"pypi": os.path.join(PEER_VENV, "bin", "python"), "debian": "/usr/bin/python3"}


def parser(description):
    """The flags every driver takes."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--build-dir", default=os.path.join(REPO_DIR, "build"),
                   help="the CMake build directory holding bench/ (default: build)")
    p.add_argument("--device", default=None,
                   help="ember device name (Device::from_name); default: the default device")
    p.add_argument("--threads", default=str(os.cpu_count()),
                   help="comma-separated thread counts, each a run of both sides (default: all "
                        "cores)")
    p.add_argument("--rounds", type=int, default=3,
                   help="ember and torch run alternately this many times; figures are medians")
    p.add_argument("--peer", choices=PEERS,
                   help=f"the PyTorch peer: pypi, PyTorch 2.x from PyPI in the venv {PEER_VENV} "
                        f"($EMBER_PEER_VENV); debian, Debian's python3-torch 1.13 (default: pypi "
                        f"where its torch imports, else debian)")
    p.add_argument("--python", default=None,
                   help="the peer's Python, instead of --peer's (e.g. a GPU machine's python3)")
    p.add_argument("--results", default=None,
                   help="the markdown file the table goes to (default: bench/results/<suite>.md)")
    return p


def thread_counts(text):
    counts = [int(t) for t in text.split(",")]
    if any(c < 1 for c in counts):
        sys.exit(f"--threads: counts must be >= 1, got {text}")
    return counts


def ember_env(threads):
    """ember's environment: EMBER_NUM_THREADS (flex sizes its pool and OpenBLAS with it)."""
    return dict(os.environ, EMBER_NUM_THREADS=str(threads))


def torch_env(threads):
    """torch's environment: the OpenMP, MKL and OpenBLAS thread counts, which those libraries
    read once at load time (the peer also calls torch.set_num_threads), and OpenMP's wait
    policy PASSIVE unless the caller's environment sets one: on a machine whose cores are
    shared, libgomp's default spin-waiting made 2-thread CNN training about 10x slower here
    (215 vs 2430 samples/s, the same minute), so passive is torch's best setting."""
    env = dict(os.environ, **{name: str(threads) for name in (
        "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")})
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    return env


def ember_program(build_dir, name):
    path = os.path.join(build_dir, "bench", name)
    if not os.access(path, os.X_OK):
        sys.exit(f"{path} not found: build it (cmake --build {build_dir} --target {name})")
    return path


def _about_peer(python, threads):
    """(peer_torch/about.py's description of python's torch in the environment of a timed run
    with `threads` threads, None) or (None, why not)."""
    if not os.access(python, os.X_OK):
        return None, f"{python} does not exist"
    probe = subprocess.run([python, os.path.join(PEER_DIR, "about.py"), str(threads)],
                           capture_output=True, text=True, env=torch_env(threads))
    if probe.returncode != 0:
        return None, f"{python}: {(probe.stderr.strip().splitlines() or ['failed'])[-1]}"
    return json.loads(probe.stdout), None


def _peer_lines(about, threads):
    yes = lambda available: "yes" if available else "no"
    return [
        f"- peer: PyTorch {about['version']} ({about['origin']}, CPU)",
        f"- peer build: MKL {yes(about['mkl'])}, oneDNN {yes(about['mkldnn'])}, "
        f"BLAS {about['blas']}, CPU kernels {about['capability']}; "
        f"{'; '.join(about['libraries'])}; at {threads} threads: {', '.join(about['threads'])}",
    ]


def check_peer(args):
    """Sets args.python to the peer's Python (--python, else --peer's, else the PyPI venv's where
    its torch imports, else Debian's) and returns the results file's lines about that peer;
    exits naming both installs when it cannot import torch."""
    threads = max(thread_counts(args.threads))
    default = args.python is None and args.peer is None
    args.python = args.python or PEERS[args.peer or "pypi"]
    about, why = _about_peer(args.python, threads)
    if about is None and default:
        args.python = PEERS["debian"]
        about, why = _about_peer(args.python, threads)
    if about is None:
        sys.exit(f"{why}\nInstall a PyTorch peer (as root where something is missing): "
                 f"bench/install-peer for PyTorch 2.x from PyPI in the venv {PEER_VENV} "
                 f"(--peer pypi, the default), or bench/install-peer --debian for Debian's "
                 f"python3-torch 1.13 (--peer debian)")
    lines = _peer_lines(about, threads)
    print("\n".join(lines), flush=True)
    return lines


def _run(command, env):
    """Runs command and returns its stdout; exits on failure."""
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{shlex.join(command)} failed ({result.returncode}):\n{result.stderr}")
    return result.stdout


def run_json_line(command, env):
    """Runs command and returns the JSON object of its last stdout line; exits on failure."""
    return json.loads(_run(command, env).strip().splitlines()[-1])


def run_json_lines(command, env):
    """Runs command and returns the JSON objects of its stdout lines that hold one."""
    return [json.loads(line) for line in _run(command, env).splitlines() if line.startswith("{")]


def median(values):
    return statistics.median(values)


def ratio(ember, torch):
    """ember / peer as a speedup (> 1: ember faster), from throughputs."""
    return ember / torch if torch > 0 else float("inf")


def table(headers, rows, left=1):
    """A markdown table; the first `left` columns and text columns (unit, target, met, ...)
    left-aligned, numbers right-aligned."""
    text_columns = {"unit", "target", "met", "same result"}
    align = [":---" if i < left or h in text_columns else "---:" for i, h in enumerate(headers)]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _lscpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    except OSError:
        return platform.processor()
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def _git_revision():
    def git(*args):
        return subprocess.run(["git", "-C", REPO_DIR, *args], capture_output=True,
                              text=True).stdout.strip()
    # A copy of the tree on another machine may carry no .git, or a stale one: EMBER_REVISION
    # then names the commit.
    if os.environ.get("EMBER_REVISION"):
        return os.environ["EMBER_REVISION"]
    revision = git("rev-parse", "--short", "HEAD")
    if not revision:
        return "unknown (no git checkout; set EMBER_REVISION)"
    dirty = " (with uncommitted changes)" if git("status", "--porcelain") else ""
    return revision + dirty


def _memory_gib():
    with open("/proc/meminfo") as meminfo:
        kib = int(meminfo.readline().split()[1])
    return kib / 2**20


def machine_lines(peer_lines, threads_line=True):
    """The machine and the versions, as bullet lines; peer_lines from check_peer, or None where
    no peer ran (ember against ember); threads_line: whether the thread-count line applies (not
    on a GPU)."""
    if peer_lines is None:
        peer_lines = ["- peer: none (ember against ember)"]
        threads = "ember: EMBER_NUM_THREADS=N"
    else:
        threads = (f"torch: torch.set_num_threads(N), OMP/MKL/OPENBLAS_NUM_THREADS=N, "
                   f"OMP_WAIT_POLICY={torch_env(1)['OMP_WAIT_POLICY']}; ember: EMBER_NUM_THREADS=N")
    return [
        f"- date: {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"- CPU: {_lscpu_model()}, {os.cpu_count()} cores, {_memory_gib():.0f} GiB memory, "
        f"Linux {platform.release()}",
        f"- load average (1, 5, 15 min) when the table was written: "
        f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} (the machine is shared)",
        f"- ember: {_git_revision()}",
        *peer_lines,
        *([f"- threads (N): {threads}"] if threads_line else []),
    ]


def generated_markers():
    """The comments around the part of a results file its script writes."""
    script = os.path.basename(sys.argv[0])
    return (f"<!-- generated by {script}: begin -->",
            f"<!-- generated by {script}: end; what follows is kept when it runs again -->")


def write_results(path, title, peer_lines, body, threads_line=True, keep_rest=False):
    """Writes the results file: title, machine, command, then body (tables and notes);
    threads_line as machine_lines takes it. keep_rest: only the part between the file's
    generated markers is replaced (a file without them gets the part at its top, before what it
    held), so that sections added by hand stay."""
    command = "bench/" + os.path.basename(sys.argv[0]) + " " + shlex.join(sys.argv[1:])
    text = "\n".join([f"# {title}", "", *machine_lines(peer_lines, threads_line),
                      f"- command: `{command.strip()}`", "", body, ""])
    if keep_rest:
        begin, end = generated_markers()
        head, rest = "", ""
        if os.path.exists(path):
            with open(path) as f:
                old = f.read()
            if begin in old and end in old:
                head, rest = old.split(begin, 1)[0], old.split(end, 1)[1]
            else:
                rest = old
        text = f"{head}{begin}\n{text}{end}\n\n{rest.lstrip(chr(10))}"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    print(f"\nwritten to {os.path.relpath(path, REPO_DIR)}")


def results_path(flag, suite):
    return flag or os.path.join(BENCH_DIR, "results", f"{suite}.md")
