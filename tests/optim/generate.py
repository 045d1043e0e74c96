#!/usr/bin/python3
"""Writes golden.json: what PyTorch's optimizers, clip_grad_norm_ and learning-rate schedulers
compute, for ember's optim tests to compare with. Everything is float64.

Run by hand, with the Python that has PyTorch (Debian's python3-torch, 1.13), from the repository
root:

    /usr/bin/python3 tests/optim/generate.py

and commit tests/optim/golden.json. CI has no PyTorch: the tests read the committed JSON.
"""
import json
import math
import os

import torch

torch.set_default_dtype(torch.float64)
STEPS = 5


def values(generator, shape, scale=1.0):
    """Normal values rounded to 4 decimals (short JSON), scaled."""
    return (torch.randn(shape, generator=generator) * scale).mul(1e4).round().div(1e4)


def optimizer_case(name, kind, config, lr):
    """STEPS updates of a Linear(3, 2)'s weight [2, 3] and bias [2] with fixed gradients, whose
    size shrinks step after step (so that AMSGrad's running maximum matters)."""
    generator = torch.Generator().manual_seed(len(name) * 7919 + sum(map(ord, name)))
    weight = torch.nn.Parameter(values(generator, (2, 3)))
    bias = torch.nn.Parameter(values(generator, (2,)))
    init = {"weight": weight.tolist(), "bias": bias.tolist()}
    torch_config = dict(config)
    if kind in ("adam", "adamw"):
        torch_config["betas"] = (torch_config.pop("beta1", 0.9), torch_config.pop("beta2", 0.999))
    optimizer = {
        "sgd": torch.optim.SGD,
        "adam": torch.optim.Adam,
        "adamw": torch.optim.AdamW,
        "rmsprop": torch.optim.RMSprop,
        "adagrad": torch.optim.Adagrad,
    }[kind]([weight, bias], lr=lr, **torch_config)
    grads, after = [], []
    for step in range(STEPS):
        scale = 2.0 / (step + 1)
        weight.grad = values(generator, (2, 3), scale)
        bias.grad = values(generator, (2,), scale)
        grads.append({"weight": weight.grad.tolist(), "bias": bias.grad.tolist()})
        optimizer.step()
        after.append({"weight": weight.tolist(), "bias": bias.tolist()})
    return {"name": name, "optimizer": kind, "config": config, "lr": lr, "init": init,
            "grads": grads, "after": after}


OPTIMIZERS = [
    ("sgd", "sgd", {}, 0.1),
    ("sgd_momentum", "sgd", {"momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}, 0.1),
    ("sgd_nesterov", "sgd", {"momentum": 0.8, "nesterov": True, "weight_decay": 0.05}, 0.05),
    ("adam", "adam", {}, 0.01),
    ("adam_decay_amsgrad", "adam",
     {"beta1": 0.8, "beta2": 0.95, "eps": 1e-6, "weight_decay": 0.1, "amsgrad": True}, 0.02),
    ("adamw", "adamw", {}, 0.01),
    ("adamw_amsgrad", "adamw", {"beta2": 0.9, "weight_decay": 0.1, "amsgrad": True}, 0.03),
    ("rmsprop", "rmsprop", {}, 0.01),
    ("rmsprop_centered_momentum", "rmsprop",
     {"alpha": 0.9, "eps": 1e-6, "weight_decay": 0.01, "momentum": 0.5, "centered": True}, 0.02),
    ("adagrad", "adagrad", {}, 0.1),
    ("adagrad_decay", "adagrad",
     {"lr_decay": 0.1, "weight_decay": 0.02, "initial_accumulator_value": 0.5, "eps": 1e-8}, 0.2),
]


def clip_case(max_norm, norm_type):
    generator = torch.Generator().manual_seed(17)
    a = torch.nn.Parameter(torch.zeros(2, 3))
    b = torch.nn.Parameter(torch.zeros(4))
    a.grad = values(generator, (2, 3))
    b.grad = values(generator, (4,))
    grads = {"a": a.grad.tolist(), "b": b.grad.tolist()}
    total = torch.nn.utils.clip_grad_norm_([a, b], max_norm, norm_type)
    return {"max_norm": max_norm, "norm_type": "inf" if math.isinf(norm_type) else norm_type,
            "grads": grads, "total": total.item(),
            "clipped": {"a": a.grad.tolist(), "b": b.grad.tolist()}}


CLIPS = [(1.0, 2.0), (100.0, 2.0), (0.5, 1.0), (0.3, math.inf), (2.0, 3.0)]


def schedule(make, base_lr, steps=12):
    """The learning rate at steps 0 .. steps - 1 (one scheduler step after each optimizer step)."""
    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=base_lr)
    scheduler = make(optimizer)
    lrs = []
    for _ in range(steps):
        lrs.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return lrs


def noam(d_model, warmup, factor):
    return lambda e: factor * d_model ** -0.5 * min((e + 1) ** -0.5, (e + 1) * warmup ** -1.5)


S = torch.optim.lr_scheduler
SCHEDULERS = {
    "step": schedule(lambda o: S.StepLR(o, step_size=3, gamma=0.5), 0.1),
    "exponential": schedule(lambda o: S.ExponentialLR(o, gamma=0.9), 0.1),
    "cosine": schedule(lambda o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.01), 0.1),
    "linear": schedule(lambda o: S.LinearLR(o, start_factor=0.1, end_factor=1.0, total_iters=4),
                       0.1),
    "warmup_cosine": schedule(lambda o: S.SequentialLR(o, [
        S.LinearLR(o, start_factor=0.2, end_factor=1.0, total_iters=3),
        S.CosineAnnealingLR(o, T_max=5, eta_min=0.001)], milestones=[3]), 0.1),
    "noam": schedule(lambda o: S.LambdaLR(o, noam(16, 4, 2.0)), 1.0),
}


def main():
    golden = {
        "torch_version": torch.__version__,
        "optimizers": [optimizer_case(*case) for case in OPTIMIZERS],
        "clip_grad_norm": [clip_case(*case) for case in CLIPS],
        "schedulers": SCHEDULERS,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
    with open(path, "w") as out:
        json.dump(golden, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
