"""Recurrent layers: `RNN`, `LSTM`, `GRU` and their single-step cells `RNNCell`, `LSTMCell`,
`GRUCell`.

The recurrences are composed from dispatched operators (linear, sigmoid, tanh, mul, add, chunk,
stack, cat) as PyTorch's CPU implementation composes them, so autograd records the same nodes
and the numbers agree with PyTorch's for the same weights: per layer and direction the input
projection W_ih x + b_ih is computed for all time steps at once, then each step adds
W_hh h + b_hh."""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final, cast, overload

import framework
from framework._tensor import Tensor
from framework.c10.device import Device
from framework.c10.dtypes import dtype as DType
from framework.nn import functional as F
from framework.nn import init
from framework.nn.modules.module import Module
from framework.nn.parameter import Parameter
from framework.nn.utils.rnn import PackedSequence

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES: Final = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
"""The number of gates (blocks of `hidden_size` rows in the weights) of each mode."""

State = tuple[Tensor, ...]
"""A recurrence's state for one layer and direction: (h,) or, for LSTM, (h, c)."""


class _Weights:
    """One layer and direction's parameters: W_ih, W_hh, b_ih, b_hh (None without bias) and the
    LSTM projection W_hr (None without proj_size)."""

    __slots__ = ("b_hh", "b_ih", "w_hh", "w_hr", "w_ih")

    def __init__(
        self, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None, b_hh: Tensor | None, w_hr: Tensor | None
    ) -> None:
        self.w_ih, self.w_hh, self.b_ih, self.b_hh, self.w_hr = w_ih, w_hh, b_ih, b_hh, w_hr


def _simple_step(activation: Callable[[Tensor], Tensor]) -> Callable[[Tensor, State, _Weights], State]:
    """The Elman step h' = activation(W_hh h + b_hh + igates)."""

    def step(igates: Tensor, state: State, weights: _Weights) -> State:
        return (activation(F.linear(state[0], weights.w_hh, weights.b_hh) + igates),)

    return step


def _lstm_step(igates: Tensor, state: State, weights: _Weights) -> State:
    """The LSTM step: gates i, f, g, o from W_hh h + b_hh + igates; c' = f c + i g,
    h' = o tanh(c') (times W_hrᵀ with a projection)."""
    hx, cx = state
    gates = F.linear(hx, weights.w_hh, weights.b_hh) + igates
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    cy = forgetgate.sigmoid() * cx + ingate.sigmoid() * cellgate.tanh()
    hy = outgate.sigmoid() * cy.tanh()
    if weights.w_hr is not None:
        hy = hy.matmul(weights.w_hr.t())
    return hy, cy


def _gru_step(igates: Tensor, state: State, weights: _Weights) -> State:
    """The GRU step: r, z = sigmoid(input and hidden parts), n = tanh(i_n + r (W_hn h + b_hn)),
    h' = (h - n) z + n."""
    hx = state[0]
    i_r, i_z, i_n = igates.chunk(3, 1)
    h_r, h_z, h_n = F.linear(hx, weights.w_hh, weights.b_hh).chunk(3, 1)
    resetgate = (i_r + h_r).sigmoid()
    inputgate = (i_z + h_z).sigmoid()
    newgate = (i_n + h_n * resetgate).tanh()
    return ((hx - newgate) * inputgate + newgate,)


_STEPS: Final[dict[str, Callable[[Tensor, State, _Weights], State]]] = {
    "RNN_TANH": _simple_step(framework.tanh),
    "RNN_RELU": _simple_step(framework.relu),
    "LSTM": _lstm_step,
    "GRU": _gru_step,
}


def _run_direction(
    step: Callable[[Tensor, State, _Weights], State],
    input: Tensor,
    state: State,
    weights: _Weights,
    reverse: bool,
) -> tuple[Tensor, State]:
    """One layer and direction over a time-major input (T, N, features): the outputs h_t stacked
    along time (in input order) and the final state."""
    igates = F.linear(input, weights.w_ih, weights.b_ih).unbind(0)
    length = len(igates)
    outputs: list[Tensor] = []
    for t in range(length):
        state = step(igates[length - 1 - t if reverse else t], state, weights)
        outputs.append(state[0])
    if reverse:
        outputs.reverse()
    return framework.stack(outputs, 0), state


def _run_packed_direction(
    step: Callable[[Tensor, State, _Weights], State],
    data: Tensor,
    batch_sizes: list[int],
    state: State,
    weights: _Weights,
    reverse: bool,
) -> tuple[Tensor, State]:
    """One layer and direction over packed data (time step t holds the first batch_sizes[t]
    sequences): the outputs in packed order and each sequence's final state.  Forward, the state
    of sequences that end is set aside as the batch shrinks; in reverse, the state of sequences
    that start joins from the initial state as the batch grows."""
    igates = F.linear(data, weights.w_ih, weights.b_ih).split(batch_sizes)
    outputs: list[Tensor] = []
    if reverse:
        initial, last = state, batch_sizes[-1]
        state = tuple(part.narrow(0, 0, last) for part in initial)
        for t in range(len(batch_sizes) - 1, -1, -1):
            size = batch_sizes[t]
            if size > last:
                state = tuple(
                    framework.cat([part, start.narrow(0, last, size - last)], 0)
                    for part, start in zip(state, initial, strict=True)
                )
            state = step(igates[t], state, weights)
            outputs.append(state[0])
            last = size
        outputs.reverse()
        return framework.cat(outputs, 0), state
    ended: list[State] = []
    last = batch_sizes[0]
    for t, size in enumerate(batch_sizes):
        if size < last:
            ended.append(tuple(part.narrow(0, size, last - size) for part in state))
            state = tuple(part.narrow(0, 0, size) for part in state)
        state = step(igates[t], state, weights)
        outputs.append(state[0])
        last = size
    ended.append(state)
    ended.reverse()
    final = tuple(framework.cat([parts[i] for parts in ended], 0) for i in range(len(state)))
    return framework.cat(outputs, 0), final


class RNNBase(Module):
    """What `RNN`, `LSTM` and `GRU` share: the parameters weight_ih_l{k}, weight_hh_l{k},
    bias_ih_l{k}, bias_hh_l{k} (and weight_hr_l{k} with proj_size), suffixed `_reverse` for the
    backward direction, all drawn from U(-1/√hidden_size, 1/√hidden_size) in that order; the
    argument checks; and the multi-layer, bidirectional recurrence."""

    mode: str
    input_size: int
    hidden_size: int
    num_layers: int
    bias: bool
    batch_first: bool
    dropout: float
    bidirectional: bool
    proj_size: int
    _dim_word = ""
    """What PyTorch's input-rank message says before "instead" ("tensor " for RNN)."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being "
                "zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                UserWarning,
                stacklevel=3,
            )
        for name, value, kind in (
            ("bias", bias, bool),
            ("batch_first", batch_first, bool),
            ("input_size", input_size, int),
        ):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        num_directions = 2 if bidirectional else 1
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
            for direction in range(num_directions):
                shapes: list[tuple[str, tuple[int, ...]]] = [
                    ("weight_ih", (gate_size, layer_input_size)),
                    ("weight_hh", (gate_size, real_hidden_size)),
                ]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                suffix = "_reverse" if direction == 1 else ""
                names = [f"{kind}_l{layer}{suffix}" for kind, _ in shapes]
                for name, (_, shape) in zip(names, shapes, strict=True):
                    setattr(self, name, Parameter(framework.empty(shape, device=device, dtype=dtype)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list[Tensor]:
        """The parameters in the order of `_flat_weights_names`."""
        return [cast(Tensor, getattr(self, name)) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters of each layer and direction (forward before reverse)."""
        return [[cast(Parameter, getattr(self, name)) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Does nothing: PyTorch packs the weights for cuDNN only; on the CPU this is a no-op."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input: Tensor, batch_sizes: Tensor | None) -> None:
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: model.to({input.dtype})"
            )
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(
                "input.size(-1) must be equal to input_size. "
                f"Expected {self.input_size}, got {input.shape[-1]}"
            )

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Tensor | None) -> tuple[int, int, int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.shape[0] if self.batch_first else input.shape[1]
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return self.num_layers * num_directions, mini_batch, size

    def check_hidden_size(
        self,
        hx: Tensor,
        expected_hidden_size: tuple[int, int, int],
        msg: str = "Expected hidden size {}, got {}",
    ) -> None:
        if tuple(hx.shape) != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.shape)))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes: Tensor | None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def _batched(self, input: Tensor, name: str) -> tuple[Tensor, bool]:
        """The input with a batch dimension (unbatched 2-d inputs get one) and whether it had one."""
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{name}: Expected input to be 2D or 3D, got {input.dim()}D {self._dim_word}instead"
            )
        if input.dim() == 3:
            return input, True
        return input.unsqueeze(0 if self.batch_first else 1), False

    def _zeros(self, input: Tensor, size: int, batch: int | None = None) -> Tensor:
        """A zero initial state (num_layers * num_directions, batch, size) like the input (batch
        taken from a padded input when not given)."""
        num_directions = 2 if self.bidirectional else 1
        if batch is None:
            batch = input.shape[0] if self.batch_first else input.shape[1]
        return framework.zeros(
            (self.num_layers * num_directions, batch, size), dtype=input.dtype, device=input.device
        )

    def _forward_packed(
        self, input: PackedSequence, hx: Sequence[Tensor] | None
    ) -> tuple[PackedSequence, list[Tensor]]:
        """The recurrence over a PackedSequence: initial states (zeros by default) are permuted to
        the packed order and the final ones back to the original order."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        sizes = [int(size) for size in batch_sizes.tolist()]
        if hx is None:
            h_size = self.proj_size if self.proj_size > 0 else self.hidden_size
            state_sizes = [h_size, self.hidden_size] if self.mode == "LSTM" else [h_size]
            states = [self._zeros(data, size, sizes[0]) for size in state_sizes]
        else:
            states = [h if sorted_indices is None else h.index_select(1, sorted_indices) for h in hx]
        given = states[0] if len(states) == 1 else (states[0], states[1])
        cast(Any, self).check_forward_args(data, given, batch_sizes)
        output, finals = self._recurrence(data, states, sizes)
        if unsorted_indices is not None:
            finals = [final.index_select(1, unsorted_indices) for final in finals]
        return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), finals

    def _recurrence(
        self, input: Tensor, states: Sequence[Tensor], batch_sizes: list[int] | None = None
    ) -> tuple[Tensor, list[Tensor]]:
        """Run all layers and directions over a batched input (or packed data with its batch
        sizes): the last layer's output (directions concatenated along features) and the final
        states, each stacked over layers and directions."""
        step = _STEPS[self.mode]
        num_directions = 2 if self.bidirectional else 1
        initial = [state.unbind(0) for state in states]
        time_major = self.batch_first and batch_sizes is None
        layer_input = input.transpose(0, 1) if time_major else input
        finals: list[State] = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                index = layer * num_directions + direction
                start = tuple(parts[index] for parts in initial)
                weights = self._layer_weights(index)
                if batch_sizes is None:
                    output, final = _run_direction(step, layer_input, start, weights, direction == 1)
                else:
                    output, final = _run_packed_direction(
                        step, layer_input, batch_sizes, start, weights, direction == 1
                    )
                outputs.append(output)
                finals.append(final)
            layer_input = outputs[0] if num_directions == 1 else framework.cat(outputs, -1)
            if self.dropout != 0 and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        output = layer_input.transpose_(0, 1) if time_major else layer_input
        return output, [framework.stack([final[i] for final in finals], 0) for i in range(len(states))]

    def _layer_weights(self, index: int) -> _Weights:
        """The parameters of layer and direction `index` (layer * num_directions + direction)."""
        named = {name.split("_l")[0]: cast(Tensor, getattr(self, name)) for name in self._all_weights[index]}
        return _Weights(
            named["weight_ih"],
            named["weight_hh"],
            named.get("bias_ih"),
            named.get("bias_hh"),
            named.get("weight_hr"),
        )

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class _SingleStateRNN(RNNBase):
    """`RNN` and `GRU`: one state tensor h."""

    @overload
    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]: ...

    @overload
    def forward(self, input: PackedSequence, hx: Tensor | None = None) -> tuple[PackedSequence, Tensor]: ...

    def forward(
        self, input: Tensor | PackedSequence, hx: Tensor | None = None
    ) -> tuple[Tensor | PackedSequence, Tensor]:
        if isinstance(input, PackedSequence):
            packed, (hidden,) = self._forward_packed(input, None if hx is None else [hx])
            return packed, hidden
        input, is_batched = self._batched(input, self._get_name())
        if hx is not None:
            if not is_batched and hx.dim() != 2:
                raise RuntimeError(
                    f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor"
                )
            if is_batched and hx.dim() != 3:
                raise RuntimeError(
                    f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
                )
            hx = hx if is_batched else hx.unsqueeze(1)
        else:
            hx = self._zeros(input, self.hidden_size)
        self.check_forward_args(input, hx, None)
        output, (hidden,) = self._recurrence(input, [hx])
        if not is_batched:
            return output.squeeze(0 if self.batch_first else 1), hidden.squeeze(1)
        return output, hidden


class RNN(_SingleStateRNN):
    """Elman RNN: h_t = nonlinearity(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh), nonlinearity "tanh"
    or "relu"; returns (output, h_n)."""

    nonlinearity: str
    _dim_word = "tensor "

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        device: Device | str | None = None,
        dtype: DType | None = None,
        **kwargs: Any,
    ) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if nonlinearity not in modes:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(
            modes[nonlinearity],
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            device=device,
            dtype=dtype,
            **kwargs,
        )


class GRU(_SingleStateRNN):
    """Gated recurrent unit (gates r, z, n in PyTorch's order); returns (output, h_n)."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        device: Device | str | None = None,
        dtype: DType | None = None,
        **kwargs: Any,
    ) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__(
            "GRU",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            device=device,
            dtype=dtype,
            **kwargs,
        )


class LSTM(RNNBase):
    """Long short-term memory (gates i, f, g, o in PyTorch's order), optionally with a projection
    of the hidden state to proj_size; returns (output, (h_n, c_n))."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        super().__init__(
            "LSTM",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            proj_size,
            device=device,
            dtype=dtype,
        )

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Tensor | None) -> tuple[int, int, int]:
        layers, mini_batch, _ = self.get_expected_hidden_size(input, batch_sizes)
        return layers, mini_batch, self.hidden_size

    def check_forward_args(  # type: ignore[override]
        self, input: Tensor, hidden: tuple[Tensor, Tensor], batch_sizes: Tensor | None
    ) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(
            hidden[0], self.get_expected_hidden_size(input, batch_sizes), "Expected hidden[0] size {}, got {}"
        )
        self.check_hidden_size(
            hidden[1], self.get_expected_cell_size(input, batch_sizes), "Expected hidden[1] size {}, got {}"
        )

    @overload
    def forward(
        self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]: ...

    @overload
    def forward(
        self, input: PackedSequence, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[PackedSequence, tuple[Tensor, Tensor]]: ...

    def forward(
        self, input: Tensor | PackedSequence, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor | PackedSequence, tuple[Tensor, Tensor]]:
        if isinstance(input, PackedSequence):
            packed, (h_n, c_n) = self._forward_packed(input, hx)
            return packed, (h_n, c_n)
        input, is_batched = self._batched(input, "LSTM")
        if hx is None:
            real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zeros(input, real_hidden_size), self._zeros(input, self.hidden_size))
        else:
            dims = hx[0].dim(), hx[1].dim()
            if is_batched and dims != (3, 3):
                raise RuntimeError(
                    "For batched 3-D input, hx and cx should also be 3-D but got "
                    f"({dims[0]}-D, {dims[1]}-D) tensors"
                )
            if not is_batched:
                if dims != (2, 2):
                    raise RuntimeError(
                        "For unbatched 2-D input, hx and cx should also be 2-D but got "
                        f"({dims[0]}-D, {dims[1]}-D) tensors"
                    )
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx, None)
        output, (h_n, c_n) = self._recurrence(input, hx)
        if not is_batched:
            return output.squeeze(0 if self.batch_first else 1), (h_n.squeeze(1), c_n.squeeze(1))
        return output, (h_n, c_n)


class RNNCellBase(Module):
    """What the cells share: weight_ih (gates * hidden, input), weight_hh (gates * hidden, hidden),
    bias_ih and bias_hh, drawn from U(-1/√hidden_size, 1/√hidden_size); the input checks."""

    input_size: int
    hidden_size: int
    bias: bool
    weight_ih: Parameter
    weight_hh: Parameter
    bias_ih: Parameter | None
    bias_hh: Parameter | None

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        rows = num_chunks * hidden_size
        self.weight_ih = Parameter(framework.empty((rows, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(framework.empty((rows, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(framework.empty(rows, device=device, dtype=dtype))
            self.bias_hh = Parameter(framework.empty(rows, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = self.__dict__.get("nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _step(self, step: Callable[[Tensor, State, _Weights], State], input: Tensor, state: State) -> State:
        """One step over a batched input (N, input_size) from the states (N, hidden_size), with
        PyTorch's size checks."""
        if input.shape[1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}"
            )
        for i, hidden in enumerate(state):
            if input.shape[0] != hidden.shape[0]:
                raise RuntimeError(
                    f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size {hidden.shape[0]}"
                )
            if hidden.shape[1] != self.hidden_size:
                raise RuntimeError(
                    f"hidden{i} has inconsistent hidden_size: "
                    f"got {hidden.shape[1]}, expected {self.hidden_size}"
                )
        weights = _Weights(self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh, None)
        return step(F.linear(input, self.weight_ih, self.bias_ih), state, weights)

    def _batched(self, input: Tensor) -> tuple[Tensor, bool]:
        if input.dim() not in (1, 2):
            raise ValueError(f"{self._get_name()}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        return (input, True) if input.dim() == 2 else (input.unsqueeze(0), False)

    def _single_state(
        self, step: Callable[[Tensor, State, _Weights], State], input: Tensor, hx: Tensor | None
    ) -> Tensor:
        """RNNCell and GRUCell: one state tensor."""
        input, is_batched = self._batched(input)
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{self._get_name()}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        if hx is None:
            hx = framework.zeros((input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device)
        elif not is_batched:
            hx = hx.unsqueeze(0)
        (hy,) = self._step(step, input, (hx,))
        return hy if is_batched else hy.squeeze(0)


class RNNCell(RNNCellBase):
    """One Elman step h' = nonlinearity(W_ih x + b_ih + W_hh h + b_hh)."""

    nonlinearity: str

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        mode = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}.get(self.nonlinearity)
        if mode is None:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._single_state(_STEPS[mode], input, hx)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns (h', c')."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        input, is_batched = self._batched(input)
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(
                        f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead"
                    )
        if hx is None:
            zeros = framework.zeros(
                (input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device
            )
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        hy, cy = self._step(_lstm_step, input, hx)
        return (hy, cy) if is_batched else (hy.squeeze(0), cy.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._single_state(_gru_step, input, hx)
