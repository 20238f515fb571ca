"""`framework.return_types`: operators with several named returns give PyTorch's named tuples."""

from __future__ import annotations

import pickle
import re

import pytest

import framework
from framework import return_types

x = framework.tensor([[1.0, 5.0], [3.0, 2.0]])


def test_max_and_min_with_dim_give_named_tuples() -> None:
    best = framework.max(x, 1)
    assert type(best) is return_types.max
    assert best.values.tolist() == [5.0, 3.0]
    assert best.indices.tolist() == [1, 0]
    values, indices = x.min(dim=0)
    assert type(x.min(dim=0)) is return_types.min
    assert values.tolist() == [1.0, 2.0] and indices.tolist() == [0, 1]
    assert return_types.max._fields == ("values", "indices")


def test_the_repr_is_laid_out_as_pytorchs() -> None:
    assert repr(framework.max(x, 1)) == (
        "framework.return_types.max(\nvalues=tensor([5., 3.]),\nindices=tensor([1, 0]))"
    )
    assert type(framework.max(x, 1)).__module__ == "framework.return_types"


def test_nll_loss_forward_names_its_returns() -> None:
    result = framework.nll_loss_forward(x.log_softmax(1), framework.tensor([1, 0]), None, 1, -100)
    assert type(result) is return_types.nll_loss_forward
    assert result.total_weight.item() == 2.0


def test_the_classes_pickle_by_their_public_name() -> None:
    assert pickle.loads(pickle.dumps(return_types.max)) is return_types.max
    assert framework.return_types.min is return_types.min


def test_operator_added_since_generation_says_to_regenerate() -> None:
    from framework.ops._python_args import _not_generated

    with pytest.raises(
        RuntimeError,
        match=r"return_types.fresh_op is not generated yet: run `python -m framework.ops.codegen`",
    ):
        _not_generated("fresh_op")(1, 2)


def test_multi_output_out_takes_a_tuple_and_gives_the_out_named_tuple() -> None:
    # PyTorch 2.13: torch.max(x, 1, out=(v, i)) writes both and returns torch.return_types.max_out.
    values, indices = framework.empty(0), framework.empty(0, dtype=framework.int64)
    result = framework.max(x, 1, out=(values, indices))
    assert type(result) is return_types.max_out and result.values is values and result.indices is indices
    assert values.tolist() == [5.0, 3.0] and indices.tolist() == [1, 0]
    assert repr(result).startswith("framework.return_types.max_out(\nvalues=tensor([5., 3.]),")
    sort_out = framework.sort(x, out=[framework.empty(0), framework.empty(0, dtype=framework.int64)])
    assert type(sort_out) is return_types.sort_out and sort_out.values.tolist() == [[1.0, 5.0], [2.0, 3.0]]
    expected = "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)"
    for bad in (values, (values,), (values, indices, values), (values, 1)):
        with pytest.raises(TypeError, match=re.escape(expected)):
            framework.max(x, 1, out=bad)
    with pytest.raises(TypeError, match="max\\(\\) received an invalid combination of arguments"):
        framework.max(x, 1, values=values, indices=indices)  # PyTorch's Python API takes out= only
