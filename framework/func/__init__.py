"""`framework.func`: composable function transforms (PyTorch's `torch.func`).

`grad`, `grad_and_value`, `vjp`, `jvp`, `jacrev`, `jacfwd`, `hessian` differentiate functions of
tensors (or pytrees of them: tuples, lists, dicts) through `framework.autograd.grad`, so they
compose: gradients of gradients, Jacobians of gradients, `vmap` of `grad`. Without forward-mode AD
here, `jvp` uses the double-vjp trick and `jacfwd` computes its Jacobian in reverse mode. `vmap`
runs the function once per batch element and stacks the results (a loop, not batching rules).
`functional_call` runs a module with given parameters and buffers; `stack_module_state` stacks
the states of several modules for ensembling with `vmap`.
"""

from framework.func._autodiff import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
from framework.func._module import functional_call, stack_module_state
from framework.func._vmap import vmap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "stack_module_state",
    "vjp",
    "vmap",
]
