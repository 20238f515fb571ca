"""Autograd: variables, the graph and its engine, grad modes, custom Functions, gradcheck.

`backward`/`grad` run the graph that operators record at the Autograd key; the kernels there are
made from derivatives.yaml (see `framework.autograd.derivatives`)."""

from framework.autograd import forward_ad as forward_ad
from framework.autograd import graph as graph
from framework.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from framework.autograd.engine import backward, grad
from framework.autograd.function import Function, FunctionCtx, once_differentiable
from framework.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from framework.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from framework.autograd.variable import AutogradMeta, make_variable

__all__ = [
    "AutogradMeta",
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "forward_ad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "make_variable",
    "no_grad",
    "once_differentiable",
    "set_detect_anomaly",
    "set_grad_enabled",
]
