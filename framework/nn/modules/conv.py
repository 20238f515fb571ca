"""`Conv1d`, `Conv2d`, `Conv3d`, `ConvTranspose1d`, `ConvTranspose2d`, `ConvTranspose3d` and their lazy
versions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import framework
from framework._tensor import Tensor
from framework.c10.device import Device
from framework.c10.dtypes import dtype as DType
from framework.nn import functional as F
from framework.nn import init
from framework.nn.modules.lazy import LazyModuleMixin
from framework.nn.modules.linear import uniform_bias_
from framework.nn.modules.module import Module
from framework.nn.parameter import Parameter, UninitializedParameter

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def ntuple(value: int | Sequence[int], n: int) -> tuple[int, ...]:
    """`value` as an n-tuple (one int stands for all n), as PyTorch's `_single`/`_pair`."""
    if isinstance(value, int):
        return (value,) * n
    return tuple(value)


class _ConvNd(Module):
    """What the convolution layers share: their constructor (checked geometry, weight (out,
    in/groups, *kernel), or (in, out/groups, *kernel) when `_transposed`, bias), PyTorch's
    initialisation, padding modes and printing. A subclass gives the number of spatial dimensions
    and the functional convolution it calls."""

    _spatial_dims: ClassVar[int]
    _transposed: ClassVar[bool] = False
    in_channels: int
    out_channels: int
    kernel_size: tuple[int, ...]
    stride: tuple[int, ...]
    padding: str | tuple[int, ...]
    dilation: tuple[int, ...]
    output_padding: tuple[int, ...]
    groups: int
    padding_mode: str
    _reversed_padding_repeated_twice: list[int]
    weight: Parameter
    bias: Parameter | None

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | Sequence[int],
        stride: int | Sequence[int] = 1,
        padding: str | int | Sequence[int] = 0,
        dilation: int | Sequence[int] = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        super().__init__()
        n = self._spatial_dims
        kernel = ntuple(kernel_size, n)
        strides = ntuple(stride, n)
        dilations = ntuple(dilation, n)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in strides):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {set(_PADDING_MODES)}, but got padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel
        self.stride = strides
        self.padding = padding if isinstance(padding, str) else ntuple(padding, n)
        self.dilation = dilations
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._input_padding()
        shape = (
            (in_channels, out_channels // groups)
            if self._transposed
            else (out_channels, in_channels // groups)
        )
        self.weight = Parameter(framework.empty((*shape, *kernel), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(framework.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _input_padding(self) -> list[int]:
        """The padding F.pad applies for a non-zeros padding mode: (left, right) per spatial
        dimension, last dimension first."""
        pads: list[int] = []
        for d, k, p in reversed(
            list(zip(self.dilation, self.kernel_size, self._padding_values(), strict=True))
        ):
            if self.padding == "same":
                total = d * (k - 1)
                pads += [total // 2, total - total // 2]
            else:
                pads += [p, p]
        return pads

    def _padding_values(self) -> tuple[int, ...]:
        return (0,) * len(self.kernel_size) if isinstance(self.padding, str) else self.padding

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            uniform_bias_(self.bias, self.weight)

    def _conv_forward(self, input: Tensor, padding: str | tuple[int, ...]) -> Tensor:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self._conv_forward(padded, (0,) * len(self.kernel_size))
        return self._conv_forward(input, self.padding)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-d convolution (cross-correlation) over (N, C, L) or (C, L) inputs."""

    _spatial_dims = 1

    def _conv_forward(self, input: Tensor, padding: str | tuple[int, ...]) -> Tensor:
        return F.conv1d(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-d convolution (cross-correlation) over (N, C, H, W) or (C, H, W) inputs."""

    _spatial_dims = 2

    def _conv_forward(self, input: Tensor, padding: str | tuple[int, ...]) -> Tensor:
        return F.conv2d(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv3d(_ConvNd):
    """3-d convolution (cross-correlation) over (N, C, D, H, W) or (C, D, H, W) inputs."""

    _spatial_dims = 3

    def _conv_forward(self, input: Tensor, padding: str | tuple[int, ...]) -> Tensor:
        return F.conv3d(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    """Transposed convolution layers: weight (in, out/groups, *kernel), only zero padding, and an
    `output_size` forward may ask for (it chooses the output padding)."""

    _transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int | Sequence[int],
        stride: int | Sequence[int] = 1,
        padding: int | Sequence[int] = 0,
        output_padding: int | Sequence[int] = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: int | Sequence[int] = 1,
        padding_mode: str = "zeros",
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )
        self.output_padding = ntuple(output_padding, self._spatial_dims)

    def _output_padding(self, input: Tensor, output_size: Sequence[int] | None) -> list[int]:
        """The output padding that gives `output_size` (the spatial sizes, optionally preceded by
        the batch and channel sizes), or the layer's own."""
        if output_size is None:
            return list(self.output_padding)
        n = self._spatial_dims
        leading = 2 if input.dim() == n + 2 else 1
        sizes = list(output_size)
        if len(sizes) == leading + n:
            sizes = sizes[leading:]
        if len(sizes) != n:
            raise ValueError(
                f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or {leading + n} "
                f"elements (got {len(sizes)})"
            )
        padding = self._padding_values()
        min_sizes = [
            (input.shape[d + leading] - 1) * self.stride[d]
            - 2 * padding[d]
            + self.dilation[d] * (self.kernel_size[d] - 1)
            + 1
            for d in range(n)
        ]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, self.stride, strict=True)]
        for size, low, high in zip(sizes, min_sizes, max_sizes, strict=True):
            if size < low or size > high:
                raise ValueError(
                    f"requested an output size of {sizes}, but valid sizes range from {min_sizes} to "
                    f"{max_sizes} "
                    f"(for an input of torch.Size({list(input.shape[2:])}))"
                )
        return [size - low for size, low in zip(sizes, min_sizes, strict=True)]

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        conv_transpose = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._spatial_dims - 1]
        return conv_transpose(
            input,
            self.weight,
            self.bias,
            self.stride,
            self._padding_values(),
            self._output_padding(input, output_size),
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-d convolution (the gradient of Conv1d by its input) of (N, C, L) or (C, L)
    inputs."""

    _spatial_dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-d convolution (the gradient of Conv2d by its input) of (N, C, H, W) or
    (C, H, W) inputs."""

    _spatial_dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-d convolution (the gradient of Conv3d by its input) of (N, C, D, H, W) or
    (C, D, H, W) inputs."""

    _spatial_dims = 3


class _LazyConvXdMixin(LazyModuleMixin, _ConvNd):
    """What lazy (transposed) convolutions share: in_channels inferred from the first input
    (dimension 1 of a batched input, 0 of an unbatched one), then the weight and bias
    materialized and drawn as the regular layer's."""

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        """Materialize the weight and bias for `input`'s channels and draw them."""
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self._transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize((*shape, *self.kernel_size))  # type: ignore[attr-defined]
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))  # type: ignore[attr-defined]
            self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        unbatched = self._spatial_dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(
                f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}"
            )
        channels: int = input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]
        return channels


class _LazyConvNd(_LazyConvXdMixin):
    """A lazy convolution's constructor: the regular one without in_channels."""

    def __init__(
        self,
        out_channels: int,
        kernel_size: int | Sequence[int],
        stride: int | Sequence[int] = 1,
        padding: str | int | Sequence[int] = 0,
        dilation: int | Sequence[int] = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        super().__init__(
            0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype
        )
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)


class _LazyConvTransposeNd(_LazyConvXdMixin):
    """A lazy transposed convolution's constructor: the regular one without in_channels."""

    def __init__(
        self,
        out_channels: int,
        kernel_size: int | Sequence[int],
        stride: int | Sequence[int] = 1,
        padding: int | Sequence[int] = 0,
        output_padding: int | Sequence[int] = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: int | Sequence[int] = 1,
        padding_mode: str = "zeros",
        device: Device | str | None = None,
        dtype: DType | None = None,
    ) -> None:
        super().__init__(
            0,
            0,
            kernel_size,
            stride,
            padding,
            output_padding,
            groups,
            False,
            dilation,
            padding_mode,
            device,
            dtype,
        )
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)


class LazyConv1d(_LazyConvNd, Conv1d):
    """Conv1d whose in_channels is inferred from its first input."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConvNd, Conv2d):
    """Conv2d whose in_channels is inferred from its first input."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConvNd, Conv3d):
    """Conv3d whose in_channels is inferred from its first input."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    """ConvTranspose1d whose in_channels is inferred from its first input."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    """ConvTranspose2d whose in_channels is inferred from its first input."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    """ConvTranspose3d whose in_channels is inferred from its first input."""

    cls_to_become = ConvTranspose3d
