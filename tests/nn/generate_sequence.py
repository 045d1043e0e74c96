#!/usr/bin/python3
"""PyTorch goldens for the sequence layers (tests/nn/*attention*, transformer, recurrent,
positional encoding tests): writes tests/nn/sequence_golden.json.

Run by hand, with Debian's PyTorch (python3-torch, installed for /usr/bin/python3):

    /usr/bin/python3 tests/nn/generate_sequence.py

Every case builds the torch module from a fixed seed in float64, batch_first=True, eval mode,
and records its state_dict, inputs, outputs, and for some cases the gradients of
loss = sum(output * probe) (probe a fixed random tensor, also recorded) with respect to the
inputs and to a few params. Tensors are {"dtype", "shape", "data"} (row-major), as in
layers_golden.json, so tests/nn/layer_golden.h reads both; Bool masks are i64 0/1. Shapes are
tiny: the C++ tests run under sanitizers too.
"""
import json
import math
import os

import torch

torch.set_default_dtype(torch.float64)


def tensor(t):
    t = t.detach()
    if t.dtype == torch.bool:
        return {"dtype": "i64", "shape": list(t.shape), "data": t.reshape(-1).long().tolist()}
    return {"dtype": "f64", "shape": list(t.shape), "data": t.reshape(-1).tolist()}


def state_of(module):
    return {name: tensor(value) for name, value in module.state_dict().items()}


def randn(*shape, requires_grad=False):
    return torch.randn(*shape).requires_grad_(requires_grad)


def gradients(output, probe, named):
    """Backpropagates sum(output * probe) and returns the gradients of named tensors."""
    (output * probe).sum().backward()
    return {name: tensor(t.grad) for name, t in named.items()}


def mha_case(seed, embed_dim, heads, batch, queries, keys, masks, causal=False, bias=True):
    torch.manual_seed(seed)
    mha = torch.nn.MultiheadAttention(embed_dim, heads, bias=bias, batch_first=True).eval()
    query = randn(batch, queries, embed_dim, requires_grad=True)
    key = randn(batch, keys, embed_dim)
    value = randn(batch, keys, embed_dim)
    padding = None
    attn_mask = None
    case = {"embed_dim": embed_dim, "num_heads": heads, "bias": bias, "is_causal": causal}
    if "key_padding_mask" in masks:
        padding = torch.tensor(masks["key_padding_mask"], dtype=torch.bool)
        case["key_padding_mask"] = tensor(padding)
    if "attn_mask" in masks:
        attn_mask = torch.tensor(masks["attn_mask"], dtype=torch.bool)
        case["attn_mask"] = tensor(attn_mask)
    if causal:  # ember takes is_causal; PyTorch 1.13's MultiheadAttention takes the mask.
        attn_mask = torch.ones(queries, keys, dtype=torch.bool).triu(1)
    output, weights = mha(query, key, value, key_padding_mask=padding, attn_mask=attn_mask,
                          need_weights=True, average_attn_weights=True)
    probe = randn(*output.shape)
    case.update(state=state_of(mha), query=tensor(query), key=tensor(key), value=tensor(value),
                output=tensor(output), weights=tensor(weights), probe=tensor(probe))
    case["grads"] = gradients(output, probe, {"query": query,
                                              "in_proj_weight": mha.in_proj_weight})
    return case


def recurrent_case(kind, seed, input_size, hidden, layers, batch, steps, bidirectional=False,
                   bias=True, initial_state=True):
    torch.manual_seed(seed)
    cls = torch.nn.LSTM if kind == "lstm" else torch.nn.GRU
    net = cls(input_size, hidden, num_layers=layers, bias=bias, batch_first=True,
              bidirectional=bidirectional).eval()
    x = randn(batch, steps, input_size, requires_grad=True)
    rows = (2 if bidirectional else 1) * layers
    case = {"input_size": input_size, "hidden_size": hidden, "num_layers": layers,
            "bidirectional": bidirectional, "bias": bias, "state": state_of(net), "x": tensor(x)}
    state = None
    if initial_state:
        h0 = randn(rows, batch, hidden)
        state = h0
        case["h0"] = tensor(h0)
        if kind == "lstm":
            c0 = randn(rows, batch, hidden)
            state = (h0, c0)
            case["c0"] = tensor(c0)
    output, final = net(x, state)
    h_n, c_n = final if kind == "lstm" else (final, None)
    probe = randn(*output.shape)
    case.update(output=tensor(output), h_n=tensor(h_n), probe=tensor(probe))
    if c_n is not None:
        case["c_n"] = tensor(c_n)
    case["grads"] = gradients(output, probe, {"x": x, "weight_hh_l0": net.weight_hh_l0,
                                              "weight_ih_l0": net.weight_ih_l0})
    return case


def encoder_case(seed, d_model, heads, feedforward, activation, norm_first, layers, final_norm,
                 batch, steps, key_padding_mask):
    torch.manual_seed(seed)
    layer = torch.nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=feedforward,
                                             dropout=0.0, activation=activation,
                                             batch_first=True, norm_first=norm_first)
    norm = torch.nn.LayerNorm(d_model) if final_norm else None
    encoder = torch.nn.TransformerEncoder(layer, layers, norm=norm,
                                          enable_nested_tensor=False).eval()
    # TransformerEncoder clones one layer: perturb every param so that the layers, and the
    # norms' unit weights and zero biases, differ and each of them shows in the output.
    with torch.no_grad():
        for p in encoder.parameters():
            p.add_(0.1 * torch.randn_like(p))
    x = randn(batch, steps, d_model, requires_grad=True)
    padding = torch.tensor(key_padding_mask, dtype=torch.bool)
    output = encoder(x, src_key_padding_mask=padding)
    probe = randn(*output.shape)
    case = {"d_model": d_model, "nhead": heads, "dim_feedforward": feedforward,
            "activation": activation, "norm_first": norm_first, "num_layers": layers,
            "final_norm": final_norm, "state": state_of(encoder), "x": tensor(x),
            "key_padding_mask": tensor(padding), "output": tensor(output), "probe": tensor(probe)}
    case["grads"] = gradients(output, probe, {
        "x": x, "layers.0.linear1.weight": encoder.layers[0].linear1.weight,
        "layers.0.self_attn.in_proj_weight": encoder.layers[0].self_attn.in_proj_weight})
    return case


def sinusoidal_table(length, d_model):
    """The table, entry by entry, from the paper's formula."""
    rows = []
    for p in range(length):
        row = []
        for j in range(d_model):
            angle = p / 10000 ** ((j - j % 2) / d_model)
            row.append(math.sin(angle) if j % 2 == 0 else math.cos(angle))
        rows.append(row)
    return {"dtype": "f64", "shape": [length, d_model], "data": [v for row in rows for v in row]}


def main():
    golden = {
        "mha_self": mha_case(1, 4, 2, 2, 3, 3, {}),
        "mha_cross_masked": mha_case(2, 6, 3, 2, 3, 4, {
            "key_padding_mask": [[False, False, True, True], [False, False, False, True]],
            "attn_mask": [[False, True, False, False], [False, False, False, False],
                          [True, False, False, False]]}),
        "mha_causal_padded": mha_case(3, 4, 1, 2, 4, 4, {
            "key_padding_mask": [[False, False, False, True], [False, False, False, False]]},
            causal=True, bias=False),
        "lstm": recurrent_case("lstm", 4, 3, 4, 2, 2, 3),
        "lstm_bidirectional": recurrent_case("lstm", 5, 3, 2, 2, 2, 3, bidirectional=True,
                                             initial_state=False),
        "gru": recurrent_case("gru", 6, 3, 4, 2, 2, 3),
        "gru_bidirectional_no_bias": recurrent_case("gru", 7, 2, 3, 1, 2, 4, bidirectional=True,
                                                    bias=False),
        "encoder_relu_post_norm": encoder_case(8, 4, 2, 6, "relu", False, 2, True, 2, 3,
                                               [[False, False, True], [False, False, False]]),
        "encoder_gelu_pre_norm": encoder_case(9, 6, 3, 5, "gelu", True, 1, False, 2, 3,
                                              [[False, False, False], [False, True, False]]),
        "positional_even": {"table": sinusoidal_table(5, 6)},
        "positional_odd": {"table": sinusoidal_table(4, 5)},
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sequence_golden.json")
    with open(path, "w") as f:
        json.dump(golden, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
