"""PyTorch side of the CNN training benchmark (bench/run_cnn_train.py runs it; the ember side is
bench/cnn_train_bench.cpp): examples/fashion_mnist.h's Cnn, Adam (lr 2e-3), cross-entropy, on real
Fashion-MNIST batches: the first (warmup + steps) * batch training images in file order,
normalized as ember's FashionMnistBatcher does, all built before the clock starts.

Prints one JSON line: samples/s over the timed steps, and the process's memory in MiB: baseline
(RSS after import, data and model), peak during training, and peak over the whole process.
"""

import argparse
import gzip
import json
import os
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import common

# ember::data::FashionMnist::kMean and kStd.
FASHION_MEAN = 0.2860
FASHION_STD = 0.3530
IMAGE_SIDE = 28


class Cnn(nn.Module):
    """conv(1→16, 3x3) relu maxpool(2) conv(16→32, 3x3) relu maxpool(2) linear(1568→128) relu
    dropout(0.25) linear(128→10), as fashion_mnist::Cnn."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 7 * 7, 128)
        self.fc2 = nn.Linear(128, 10)
        self.dropout = nn.Dropout(0.25)

    def forward(self, images):
        h = F.max_pool2d(F.relu(self.conv1(images)), 2)
        h = F.max_pool2d(F.relu(self.conv2(h)), 2)
        flat = h.reshape(h.shape[0], 32 * 7 * 7)
        return self.fc2(self.dropout(F.relu(self.fc1(flat))))


def read_idx(path):
    """The u8 array of an IDX file (gzip), shaped by its header."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    rank = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(rank)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(dims)


def batches(data_dir, batch, count):
    """count batches of the training set in file order (wrapping around at its end)."""
    images = read_idx(os.path.join(data_dir, "train-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data_dir, "train-labels-idx1-ubyte.gz"))
    out = []
    for b in range(count):
        index = np.arange(b * batch, (b + 1) * batch) % len(labels)
        pixels = (images[index] / 255.0 - FASHION_MEAN) / FASHION_STD
        x = torch.from_numpy(pixels.astype(np.float32)).reshape(batch, 1, IMAGE_SIDE, IMAGE_SIDE)
        out.append((x.contiguous(), torch.from_numpy(labels[index].astype(np.int64))))
    return out


def train(model, optimizer, data):
    """One Adam step per batch; returns the last loss (a tensor, not read)."""
    loss = None
    for images, targets in data:
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(images), targets)
        loss.backward()
        optimizer.step()
    return loss


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--data-dir", default=os.environ.get("EMBER_FASHION_MNIST_DIR")
                        or "/usr/share/datasets/fashion-mnist")
    args = parser.parse_args()

    common.set_threads(args.threads)
    torch.manual_seed(42)
    data = batches(args.data_dir, args.batch, args.warmup + args.steps)
    model = Cnn()
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    baseline_kib, setup_peak_kib = common.memory_kib()
    common.reset_peak_memory()

    train(model, optimizer, data[:args.warmup])
    start = time.perf_counter()
    loss = train(model, optimizer, data[args.warmup:])
    final_loss = loss.item()  # reads the result: the work is done
    seconds = time.perf_counter() - start

    _, train_peak_kib = common.memory_kib()
    print(json.dumps({
        "samples_per_s": args.steps * args.batch / seconds,
        "seconds": seconds,
        "final_loss": final_loss,
        "baseline_mib": baseline_kib / 1024,
        "train_peak_mib": train_peak_kib / 1024,
        "peak_mib": max(setup_peak_kib, train_peak_kib) / 1024,
    }))


if __name__ == "__main__":
    main()
