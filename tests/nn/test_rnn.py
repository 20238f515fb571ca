"""`framework.nn` recurrent layers (RNN, LSTM, GRU and their cells) and
`framework.nn.utils.rnn.pad_sequence`: values against a NumPy reference of PyTorch's
recurrences computed from the layers' own weights, seeded initialisation against recorded
PyTorch values, gradients by gradcheck, checks and messages; live comparisons with PyTorch
(values, gradients, grad_fn names, reprs) when it is installed."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from oracle_fixtures import needs_torch, torch

import framework
import framework.nn as nn
from framework import Tensor
from framework.autograd import gradcheck
from framework.nn.utils.rnn import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)

Array = npt.NDArray[np.float64]


def sigmoid(x: Array) -> Array:
    return np.asarray(1.0 / (1.0 + np.exp(-x)))


def np_step(mode: str, x: Array, state: tuple[Array, ...], w: dict[str, Array]) -> tuple[Array, ...]:
    """PyTorch's documented recurrences, one step, in NumPy."""
    gi = x @ w["weight_ih"].T + w.get("bias_ih", 0.0)
    gh = state[0] @ w["weight_hh"].T + w.get("bias_hh", 0.0)
    if mode == "RNN_TANH":
        return (np.tanh(gi + gh),)
    if mode == "RNN_RELU":
        return (np.maximum(gi + gh, 0.0),)
    if mode == "GRU":
        i_r, i_z, i_n = np.split(gi, 3, axis=1)
        h_r, h_z, h_n = np.split(gh, 3, axis=1)
        r, z = sigmoid(i_r + h_r), sigmoid(i_z + h_z)
        n = np.tanh(i_n + r * h_n)
        return ((1 - z) * n + z * state[0],)
    i, f, g, o = np.split(gi + gh, 4, axis=1)
    c = sigmoid(f) * state[1] + sigmoid(i) * np.tanh(g)
    h = sigmoid(o) * np.tanh(c)
    if "weight_hr" in w:
        h = h @ w["weight_hr"].T
    return h, c


def np_rnn(module: nn.RNNBase, x: Array, states: list[Array]) -> tuple[Array, list[Array]]:
    """The whole multi-layer (bidirectional) recurrence over a time-major input in NumPy."""
    directions = 2 if module.bidirectional else 1
    layer_input, finals = x, []
    for layer in range(module.num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            weights = {
                name.split("_l")[0]: getattr(module, name).detach().numpy()
                for name in module._all_weights[index]
            }
            state = tuple(s[index] for s in states)
            steps = range(x.shape[0] - 1, -1, -1) if direction else range(x.shape[0])
            out = [np.empty(0)] * x.shape[0]
            for t in steps:
                state = np_step(module.mode, layer_input[t], state, weights)
                out[t] = state[0]
            outputs.append(np.stack(out))
            finals.append(state)
        layer_input = np.concatenate(outputs, axis=-1)
    return layer_input, [np.stack([f[i] for f in finals]) for i in range(len(states))]


RNN_CASES: list[tuple[str, dict[str, Any]]] = [
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "bias": False, "num_layers": 2}),
    ("RNN", {"bidirectional": True, "batch_first": True}),
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"proj_size": 2, "num_layers": 2, "batch_first": True}),
    ("GRU", {}),
    ("GRU", {"num_layers": 3, "bidirectional": True, "bias": False}),
]
CASE_IDS = [f"{name}-{kwargs}" for name, kwargs in RNN_CASES]


def make(name: str, kwargs: dict[str, Any], lib: Any = framework, seed: int = 0) -> Any:
    lib.manual_seed(seed)
    return getattr(lib.nn, name)(3, 4, **kwargs).double()


def inputs(module: Any, batch_first: bool) -> tuple[Array, list[Array]]:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, 3) if batch_first else (5, 2, 3))
    directions = 2 if module.bidirectional else 1
    layers = module.num_layers * directions
    h_size = module.proj_size or module.hidden_size
    states = [rng.standard_normal((layers, 2, h_size))]
    if module.mode == "LSTM":
        states.append(rng.standard_normal((layers, 2, module.hidden_size)))
    return x, states


def run(module: Any, lib: Any, x: Array, states: list[Array]) -> tuple[Any, list[Any]]:
    hx = [lib.tensor(s) for s in states]
    output, hidden = module(lib.tensor(x), tuple(hx) if module.mode == "LSTM" else hx[0])
    return output, list(hidden) if isinstance(hidden, tuple) else [hidden]


@pytest.mark.parametrize(("name", "kwargs"), RNN_CASES, ids=CASE_IDS)
def test_recurrence_matches_numpy(name: str, kwargs: dict[str, Any]) -> None:
    module = make(name, kwargs)
    batch_first = kwargs.get("batch_first", False)
    x, states = inputs(module, batch_first)
    output, hidden = run(module, framework, x, states)
    expected, expected_hidden = np_rnn(module, x.transpose(1, 0, 2) if batch_first else x, states)
    if batch_first:
        expected = expected.transpose(1, 0, 2)
    np.testing.assert_allclose(output.detach().numpy(), expected, rtol=1e-12, atol=1e-12)
    for ours, theirs in zip(hidden, expected_hidden, strict=True):
        np.testing.assert_allclose(ours.detach().numpy(), theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("name", "kwargs"), RNN_CASES, ids=CASE_IDS)
def test_unbatched_input_and_default_state(name: str, kwargs: dict[str, Any]) -> None:
    module = make(name, kwargs)
    batch_first = kwargs.get("batch_first", False)
    x, states = inputs(module, batch_first)
    batched, hidden = run(module, framework, x, [np.zeros_like(s) for s in states])
    sample = x[0] if batch_first else x[:, 0]
    output, default_hidden = module(framework.tensor(sample))
    first = batched[0] if batch_first else batched[:, 0]
    np.testing.assert_allclose(output.detach().numpy(), first.detach().numpy(), rtol=1e-12)
    default = list(default_hidden) if isinstance(default_hidden, tuple) else [default_hidden]
    for ours, full in zip(default, hidden, strict=True):
        np.testing.assert_allclose(ours.detach().numpy(), full[:, 0].detach().numpy(), rtol=1e-12)
    assert output.grad_fn.name() == "SqueezeBackward1"


def test_parameter_names_shapes_and_grad_fn_names() -> None:
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    names = [(n, tuple(p.shape)) for n, p in lstm.named_parameters()]
    assert names[:5] == [
        ("weight_ih_l0", (16, 3)),
        ("weight_hh_l0", (16, 2)),
        ("bias_ih_l0", (16,)),
        ("bias_hh_l0", (16,)),
        ("weight_hr_l0", (2, 4)),
    ]
    assert names[5][0] == "weight_ih_l0_reverse" and dict(names)["weight_ih_l1"] == (16, 4)
    assert [len(w) for w in lstm.all_weights] == [5, 5, 5, 5]
    out, (h, c) = lstm(framework.randn(5, 2, 3))
    assert out.shape == (5, 2, 4) and h.shape == (4, 2, 2) and c.shape == (4, 2, 4)
    assert (out.grad_fn.name(), h.grad_fn.name()) == ("CatBackward0", "StackBackward0")
    gru_out, _ = nn.GRU(3, 4, batch_first=True)(framework.randn(2, 5, 3))
    assert gru_out.grad_fn.name() == "TransposeBackward1"
    assert nn.LSTMCell(3, 4)(framework.randn(2, 3))[0].grad_fn.name() == "MulBackward0"
    assert nn.GRUCell(3, 4)(framework.randn(2, 3)).grad_fn.name() == "AddBackward0"


RECORDED_RNN_INIT = [-0.0053, 0.3793, -0.5820, -0.5204, -0.2723, 0.1896, -0.0140, 0.5607]
"""torch.manual_seed(0); torch.nn.RNN(2, 2): weight_ih_l0, weight_hh_l0 flattened (4 places)."""


def test_seeded_initialisation_matches_recorded_pytorch() -> None:
    framework.manual_seed(0)
    rnn = nn.RNN(2, 2)
    values = np.concatenate(
        [rnn.weight_ih_l0.detach().numpy().ravel(), rnn.weight_hh_l0.detach().numpy().ravel()]
    )
    np.testing.assert_allclose(values, RECORDED_RNN_INIT, atol=1e-4)
    bound = 1 / np.sqrt(4)
    for p in nn.GRUCell(3, 4).parameters():
        assert np.abs(p.detach().numpy()).max() <= bound


def cell_reference(module: Any, mode: str, x: Array, state: tuple[Array, ...]) -> tuple[Array, ...]:
    weights = {n: p.detach().numpy() for n, p in module.named_parameters()}
    return np_step(mode, x, state, weights)


@pytest.mark.parametrize(
    ("cls", "mode", "states"),
    [(nn.RNNCell, "RNN_TANH", 1), (nn.LSTMCell, "LSTM", 2), (nn.GRUCell, "GRU", 1)],
    ids=["RNNCell", "LSTMCell", "GRUCell"],
)
def test_cells_match_numpy(cls: type[nn.RNNCellBase], mode: str, states: int) -> None:
    cell = cls(3, 4, dtype=framework.float64)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3))
    state = tuple(rng.standard_normal((2, 4)) for _ in range(states))
    hx = tuple(framework.tensor(s) for s in state)
    result = cell(framework.tensor(x), hx if states == 2 else hx[0])
    ours = result if isinstance(result, tuple) else (result,)
    for got, want in zip(ours, cell_reference(cell, mode, x, state), strict=True):
        np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12)
    unbatched = cell(framework.tensor(x[0]))
    first = unbatched[0] if isinstance(unbatched, tuple) else unbatched
    zeros = tuple(np.zeros((1, 4)) for _ in range(states))
    np.testing.assert_allclose(
        first.detach().numpy(), cell_reference(cell, mode, x[:1], zeros)[0][0], rtol=1e-12
    )


def test_relu_cell() -> None:
    cell = nn.RNNCell(3, 4, bias=False, nonlinearity="relu")
    x = framework.randn(2, 3)
    expected = np.maximum(x.numpy() @ cell.weight_ih.detach().numpy().T, 0)
    np.testing.assert_allclose(cell(x).detach().numpy(), expected, rtol=1e-6)
    assert repr(cell) == "RNNCell(3, 4, bias=False, nonlinearity=relu)"


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_gradcheck_through_the_recurrence(name: str) -> None:
    module = make(name, {"num_layers": 2, "bidirectional": True})
    rng = np.random.default_rng(3)
    x = framework.tensor(rng.standard_normal((3, 2, 3)), requires_grad=True)
    h0 = framework.tensor(rng.standard_normal((4, 2, 4)), requires_grad=True)

    def fn(x: Tensor, h0: Tensor) -> tuple[Tensor, ...]:
        if name == "LSTM":
            out, (h, c) = module(x, (h0, h0 * 0.5))
            return out, h, c
        out, h = module(x, h0)
        return out, h

    assert gradcheck(fn, (x, h0))


def test_cell_gradcheck() -> None:
    cell = nn.LSTMCell(2, 3, dtype=framework.float64)
    x = framework.randn(2, 2, dtype=framework.float64, requires_grad=True)
    c0 = framework.randn(2, 3, dtype=framework.float64, requires_grad=True)

    def fn(x: Tensor, c0: Tensor) -> tuple[Tensor, Tensor]:
        h, c = cell(x, (c0.tanh(), c0))
        return h, c

    assert gradcheck(fn, (x, c0))


def test_dropout_between_layers_only_while_training() -> None:
    framework.manual_seed(0)
    module = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = framework.randn(4, 2, 3)
    module.eval()
    first, _ = module(x)
    np.testing.assert_array_equal(module(x)[0].detach().numpy(), first.detach().numpy())
    module.train()
    trained = [module(x)[0].detach().numpy() for _ in range(2)]
    assert not np.array_equal(trained[0], trained[1])


def test_reprs() -> None:
    assert repr(nn.LSTM(3, 4, 2, dropout=0.1, bidirectional=True, proj_size=2)) == (
        "LSTM(3, 4, proj_size=2, num_layers=2, dropout=0.1, bidirectional=True)"
    )
    assert repr(nn.GRU(3, 4, batch_first=True)) == "GRU(3, 4, batch_first=True)"
    assert repr(nn.RNN(3, 4, nonlinearity="relu", bias=False)) == "RNN(3, 4, bias=False)"
    assert repr(nn.LSTMCell(3, 4)) == "LSTMCell(3, 4)"


def raises(exc: type[Exception], message: str, fn: Callable[[], object]) -> None:
    with pytest.raises(exc, match=re.escape(message)):
        fn()


def test_constructor_checks() -> None:
    raises(ValueError, "dropout should be a number in range [0, 1]", lambda: nn.RNN(3, 4, dropout=2))
    raises(ValueError, "proj_size argument is only supported for LSTM", lambda: nn.GRU(3, 4, proj_size=2))
    raises(
        ValueError,
        "Unknown nonlinearity 'x'. Select from 'tanh' or 'relu'.",
        lambda: nn.RNN(3, 4, nonlinearity="x"),
    )
    raises(ValueError, "proj_size has to be smaller than hidden_size", lambda: nn.LSTM(3, 4, proj_size=4))
    raises(ValueError, "hidden_size must be greater than zero", lambda: nn.LSTM(3, 0))
    raises(TypeError, "bias should be of type bool, got: int", lambda: nn.LSTM(3, 4, bias=1))  # type: ignore[arg-type]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.LSTM(3, 4, dropout=0.2)
    assert "non-zero dropout expects num_layers greater than 1" in str(caught[0].message)


def test_forward_checks() -> None:
    lstm, gru = nn.LSTM(3, 4), nn.GRU(3, 4)
    x = framework.randn(5, 2, 3)
    raises(
        RuntimeError,
        "input.size(-1) must be equal to input_size. Expected 3, got 5",
        lambda: lstm(framework.randn(5, 2, 5)),
    )
    raises(
        ValueError,
        "LSTM: Expected input to be 2D or 3D, got 4D instead",
        lambda: lstm(framework.randn(1, 5, 2, 3)),
    )
    raises(
        ValueError,
        "RNN: Expected input to be 2D or 3D, got 1D tensor instead",
        lambda: nn.RNN(3, 4)(framework.randn(3)),
    )
    raises(
        ValueError, "RNN input dtype (framework.float64) does not match weight dtype", lambda: gru(x.double())
    )
    bad = (framework.randn(1, 3, 4), framework.randn(1, 2, 4))
    raises(RuntimeError, "Expected hidden[0] size (1, 2, 4), got [1, 3, 4]", lambda: lstm(x, bad))
    raises(
        RuntimeError,
        "Expected hidden size (1, 2, 4), got [2, 2, 4]",
        lambda: gru(x, framework.randn(2, 2, 4)),
    )
    raises(
        RuntimeError,
        "For batched 3-D input, hx should also be 3-D but got 2-D tensor",
        lambda: gru(x, framework.randn(2, 4)),
    )
    raises(
        RuntimeError,
        "For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, 3-D) tensors",
        lambda: lstm(x[:, 0], (framework.randn(1, 1, 4), framework.randn(1, 1, 4))),
    )
    cell = nn.GRUCell(3, 4)
    raises(
        RuntimeError,
        "input has inconsistent input_size: got 5 expected 3",
        lambda: cell(framework.randn(2, 5)),
    )
    raises(
        RuntimeError,
        "Input batch size 2 doesn't match hidden0 batch size 3",
        lambda: cell(x[0], framework.randn(3, 4)),
    )
    raises(
        RuntimeError,
        "hidden0 has inconsistent hidden_size: got 5, expected 4",
        lambda: cell(x[0], framework.randn(2, 5)),
    )
    raises(ValueError, "GRUCell: Expected input to be 1D or 2D, got 3D instead", lambda: cell(x))
    raises(
        ValueError,
        "LSTMCell: Expected hx[1] to be 1D or 2D, got 3D instead",
        lambda: nn.LSTMCell(3, 4)(x[0], (x[0], x)),
    )


def test_pad_sequence() -> None:
    a = framework.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    b = framework.tensor([[7.0, 8.0]])
    padded = pad_sequence([a, b], padding_value=-1.0)
    expected = np.array([[[1, 2], [7, 8]], [[3, 4], [-1, -1]], [[5, 6], [-1, -1]]], dtype=np.float32)
    np.testing.assert_array_equal(padded.detach().numpy(), expected)
    left = pad_sequence([a, b], batch_first=True, padding_side="left")
    np.testing.assert_array_equal(left[1].detach().numpy(), [[0, 0], [0, 0], [7, 8]])
    assert padded.grad_fn.name() == "torch::autograd::CopySlices"
    (padded * padded).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), 2 * a.detach().numpy())
    mixed = pad_sequence([framework.ones(2, dtype=framework.int64), framework.ones(3)], padding_value=2.5)
    assert mixed.dtype == framework.int64 and mixed.tolist() == [[1, 1], [1, 1], [2, 1]]
    raises(RuntimeError, "received an empty list of sequences", lambda: pad_sequence([]))
    raises(
        RuntimeError,
        "Expected padding_side to be one of left or right, but got up.",
        lambda: pad_sequence([a], padding_side="up"),
    )
    raises(RuntimeError, "pad_sequence: Expected iterable for input sequences", lambda: pad_sequence(3))  # type: ignore[arg-type]


PACKED_CASES: list[tuple[str, dict[str, Any]]] = [
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"proj_size": 2, "bidirectional": True}),
    ("GRU", {"bidirectional": True}),
    ("RNN", {"num_layers": 2}),
]


@pytest.mark.parametrize(("name", "kwargs"), PACKED_CASES, ids=[f"{n}-{k}" for n, k in PACKED_CASES])
@pytest.mark.parametrize("lengths", [[5, 3, 3, 1], [2, 5, 1, 4]], ids=["sorted", "unsorted"])
def test_packed_sequence_runs_each_sequence_on_its_own(
    name: str, kwargs: dict[str, Any], lengths: list[int]
) -> None:
    module = make(name, kwargs)
    _, shapes = inputs(module, False)
    x = np.random.default_rng(6).standard_normal((5, 4, 3))
    states = [np.random.default_rng(7).standard_normal((s.shape[0], 4, s.shape[2])) for s in shapes]
    packed = pack_padded_sequence(
        framework.tensor(x), lengths, enforce_sorted=lengths == sorted(lengths)[::-1]
    )
    hx = [framework.tensor(s) for s in states]
    output, hidden = module(packed, tuple(hx) if name == "LSTM" else hx[0])
    assert isinstance(output, PackedSequence)
    padded, got_lengths = pad_packed_sequence(output, padding_value=-7.0)
    assert got_lengths.tolist() == lengths and padded.shape[:2] == (5, 4)
    finals = list(hidden) if isinstance(hidden, tuple) else [hidden]
    for b, length in enumerate(lengths):
        expected, expected_finals = np_rnn(module, x[:length, b : b + 1], [s[:, b : b + 1] for s in states])
        np.testing.assert_allclose(
            padded[:length, b : b + 1].detach().numpy(), expected, rtol=1e-12, atol=1e-12
        )
        assert (padded[length:, b].detach().numpy() == -7.0).all()
        for got, want in zip(finals, expected_finals, strict=True):
            np.testing.assert_allclose(got[:, b : b + 1].detach().numpy(), want, rtol=1e-12, atol=1e-12)


def test_pack_and_pad_round_trips() -> None:
    x = framework.randn(4, 3, 2, requires_grad=True)
    packed = pack_padded_sequence(x, [4, 2, 1])
    assert packed.batch_sizes.tolist() == [3, 2, 1, 1] and packed.sorted_indices is None
    np.testing.assert_array_equal(packed.data.detach().numpy()[:3], x.detach().numpy()[0])
    unsorted = pack_padded_sequence(
        x.transpose(0, 1), framework.tensor([1, 4, 2]), batch_first=True, enforce_sorted=False
    )
    assert unsorted.sorted_indices.tolist() == [1, 2, 0] and unsorted.unsorted_indices.tolist() == [2, 0, 1]
    padded, lengths = pad_packed_sequence(unsorted, batch_first=True, total_length=6)
    assert padded.shape == (3, 6, 2) and lengths.tolist() == [1, 4, 2] and lengths.dtype == framework.int64
    np.testing.assert_array_equal(padded[1, :4].detach().numpy(), x[:, 1].detach().numpy())
    sequences = [framework.randn(3, 2), framework.randn(1, 2), framework.randn(2, 2)]
    for got, want in zip(
        unpack_sequence(pack_sequence(sequences, enforce_sorted=False)), sequences, strict=True
    ):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    for got, want in zip(
        unpad_sequence(pad_sequence(sequences), framework.tensor([3, 1, 2])), sequences, strict=True
    ):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert pack_sequence(sequences[:1]).double().data.dtype == framework.float64
    padded.sum().backward()
    assert x.grad is not None and x.grad.numpy()[1:, 0].sum() == 0


def test_pack_checks() -> None:
    x = framework.randn(4, 3, 2)
    raises(
        RuntimeError,
        "`lengths` array must be sorted in decreasing order",
        lambda: pack_padded_sequence(x, [4, 1, 2]),
    )
    raises(
        RuntimeError,
        "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)",
        lambda: pack_padded_sequence(x, [4, 2]),
    )
    raises(
        RuntimeError,
        "Length of all samples has to be greater than 0",
        lambda: pack_padded_sequence(x, [4, 2, 0]),
    )
    raises(
        ValueError,
        "Expected total_length to be at least the length of the longest sequence in input, but got "
        "total_length=2 and max sequence length being 4",
        lambda: pad_packed_sequence(pack_padded_sequence(x, [4, 2, 1]), total_length=2),
    )


# ---- live comparisons with PyTorch ---------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize(("name", "kwargs"), RNN_CASES, ids=CASE_IDS)
def test_matches_torch_live(name: str, kwargs: dict[str, Any]) -> None:
    ours, theirs = make(name, kwargs, framework, seed=5), make(name, kwargs, torch, seed=5)
    assert repr(ours) == repr(theirs)
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        assert n1 == n2
        np.testing.assert_allclose(p1.detach().numpy(), p2.detach().numpy(), rtol=1e-6, err_msg=n1)
    x, states = inputs(ours, kwargs.get("batch_first", False))
    results = []
    for module, lib in ((ours, framework), (theirs, torch)):
        tx = lib.tensor(x, requires_grad=True)
        hx = [lib.tensor(s, requires_grad=True) for s in states]
        output, hidden = module(tx, tuple(hx) if name == "LSTM" else hx[0])
        hidden = list(hidden) if isinstance(hidden, tuple) else [hidden]
        (output.sin().sum() + sum((h * h).sum() for h in hidden)).backward()
        grads = (
            [tx.grad.numpy()] + [h.grad.numpy() for h in hx] + [p.grad.numpy() for p in module.parameters()]
        )
        results.append((output.detach().numpy(), [h.detach().numpy() for h in hidden], grads))
    (o1, h1, g1), (o2, h2, g2) = results
    np.testing.assert_allclose(o1, o2, rtol=1e-10, atol=1e-12)
    for a, b in zip(h1 + g1, h2 + g2, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_torch_live(name: str) -> None:
    results = []
    for lib in (framework, torch):
        lib.manual_seed(7)
        cell = getattr(lib.nn, name)(3, 4)
        out = cell(lib.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)))
        outs = out if isinstance(out, tuple) else (out,)
        results.append(([o.detach().numpy() for o in outs], [o.grad_fn.name() for o in outs], repr(cell)))
    for a, b in zip(results[0][0], results[1][0], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert results[0][1:] == results[1][1:]


@needs_torch
def test_seeded_initialisation_matches_torch_live() -> None:
    framework.manual_seed(0)
    torch.manual_seed(0)
    theirs = torch.nn.RNN(2, 2)
    ours = nn.RNN(2, 2)
    recorded = np.concatenate(
        [theirs.weight_ih_l0.detach().numpy().ravel(), theirs.weight_hh_l0.detach().numpy().ravel()]
    )
    np.testing.assert_allclose(recorded, RECORDED_RNN_INIT, atol=1e-4)
    for p1, p2 in zip(ours.parameters(), theirs.parameters(), strict=True):
        np.testing.assert_array_equal(p1.detach().numpy(), p2.detach().numpy())


@needs_torch
@pytest.mark.parametrize(("name", "kwargs"), PACKED_CASES, ids=[f"{n}-{k}" for n, k in PACKED_CASES])
def test_packed_sequences_match_torch_live(name: str, kwargs: dict[str, Any]) -> None:
    from torch.nn.utils import rnn as torch_rnn

    x = np.random.default_rng(8).standard_normal((5, 4, 3))
    results = []
    for lib, utils in ((framework, framework.nn.utils.rnn), (torch, torch_rnn)):
        module = make(name, kwargs, lib, seed=9)
        tx = lib.tensor(x, requires_grad=True)
        output, hidden = module(utils.pack_padded_sequence(tx, [2, 5, 1, 4], enforce_sorted=False))
        hidden = list(hidden) if isinstance(hidden, tuple) else [hidden]
        padded, _ = utils.pad_packed_sequence(output, batch_first=True)
        (padded.sin().sum() + sum((h * h).sum() for h in hidden)).backward()
        names = [output.data.grad_fn.name(), hidden[0].grad_fn.name()]
        values = [padded.detach().numpy(), tx.grad.numpy()] + [h.detach().numpy() for h in hidden]
        results.append((names, values + [p.grad.numpy() for p in module.parameters()]))
    assert results[0][0] == results[1][0]
    for a, b in zip(results[0][1], results[1][1], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@needs_torch
def test_pad_sequence_matches_torch_live() -> None:
    from torch.nn.utils.rnn import pad_sequence as torch_pad

    rng = np.random.default_rng(4)
    seqs = [rng.standard_normal((n, 2)).astype(np.float32) for n in (3, 1, 4)]
    for kwargs in ({}, {"batch_first": True, "padding_value": 9.0}, {"padding_side": "left"}):
        ours = pad_sequence([framework.tensor(s) for s in seqs], **kwargs)
        theirs = torch_pad([torch.tensor(s) for s in seqs], **kwargs)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
