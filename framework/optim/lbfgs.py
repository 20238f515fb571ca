"""`LBFGS`: limited-memory BFGS over all parameters as one flat vector, with an optional strong-Wolfe
line search (PyTorch's `torch.optim.LBFGS`, after minFunc)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import framework
from framework import enable_grad, no_grad
from framework._tensor import Tensor
from framework.optim.optimizer import Optimizer, ParamsT, check_non_negative

__all__ = ["LBFGS"]

# A step length or a slope: a Python number, or a 0-dim tensor where it came from one (as in
# PyTorch, whose arithmetic here mixes both; keeping the same kinds keeps the same roundings).
Real = Any


def _cubic_minimizer(
    x1: Real, f1: Real, g1: Real, x2: Real, f2: Real, g2: Real, bounds: tuple[Real, Real] | None = None
) -> Real:
    """The minimizer of the cubic through (x1, f1) with slope g1 and (x2, f2) with slope g2, clamped
    to `bounds` (default: the interval between x1 and x2); the middle of the bounds when the cubic
    has no real minimizer."""
    low, high = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if not d2_square >= 0:
        return (low + high) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        minimizer = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        minimizer = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(minimizer, low), high)


class _Point:
    """A trial step length `t` with the loss `f`, flat gradient `g` and slope `gtd` along the
    direction there."""

    def __init__(self, t: Real, f: Real, g: Tensor, gtd: Real) -> None:
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(
    evaluate: Callable[[Real], tuple[float, Tensor]],
    d: Tensor,
    start: _Point,
    t: Real,
    tolerance_change: float,
    max_ls: int,
    c1: float = 1e-4,
    c2: float = 0.9,
) -> tuple[float, Tensor, Real, int]:
    """A step length along `d` from `start` (step 0) meeting the strong Wolfe conditions
    (sufficient decrease `c1`, curvature `c2`): first bracket one, growing `t` by cubic
    extrapolation, then zoom into the bracket by cubic interpolation, at most `max_ls` evaluations
    after the first. The loss, flat gradient and step length found, and the evaluations made."""
    d_norm = d.abs().max()
    start = _Point(start.t, start.f, start.g.clone(), start.gtd)

    def trial(step: Real) -> _Point:
        f, g = evaluate(step)
        return _Point(step, f, g, g.dot(d))

    def sufficient_decrease(p: _Point) -> Any:
        return p.f > start.f + c1 * p.t * start.gtd

    new = trial(t)
    evaluations = 1
    prev = start
    bracket: list[_Point] | None = None
    done = False
    iteration = 0
    while iteration < max_ls:
        if sufficient_decrease(new) or (iteration > 1 and new.f >= prev.f):
            bracket = [prev, _Point(new.t, new.f, new.g.clone(), new.gtd)]
            break
        if abs(new.gtd) <= -c2 * start.gtd:
            bracket = [new]
            done = True
            break
        if new.gtd >= 0:
            bracket = [prev, _Point(new.t, new.f, new.g.clone(), new.gtd)]
            break
        bounds = (new.t + 0.01 * (new.t - prev.t), new.t * 10)
        step = _cubic_minimizer(prev.t, prev.f, prev.gtd, new.t, new.f, new.gtd, bounds)
        prev = _Point(new.t, new.f, new.g.clone(), new.gtd)
        new = trial(step)
        evaluations += 1
        iteration += 1
    if iteration == max_ls:
        bracket = [start, new]
    assert bracket is not None
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    insufficient_progress = False
    while not done and iteration < max_ls:
        a, b = bracket[0].t, bracket[1].t
        if abs(b - a) * d_norm < tolerance_change:
            break
        step = _cubic_minimizer(a, bracket[0].f, bracket[0].gtd, b, bracket[1].f, bracket[1].gtd)
        upper, lower = max(a, b), min(a, b)
        margin = 0.1 * (upper - lower)
        if min(upper - step, step - lower) < margin:
            # Too close to an end of the bracket: move a tenth of it inside when the last trial was
            # too close as well or `step` is at an end, else note the lack of progress.
            if insufficient_progress or step >= upper or step <= lower:
                step = upper - margin if abs(step - upper) < abs(step - lower) else lower + margin
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        new = trial(step)
        evaluations += 1
        iteration += 1
        found = _Point(new.t, new.f, new.g.clone(), new.gtd)
        if sufficient_decrease(new) or new.f >= bracket[low].f:
            bracket[high] = found
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if abs(new.gtd) <= -c2 * start.gtd:
                done = True
            elif new.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = found
    best = bracket[low]
    return best.f, best.g, best.t, evaluations


class LBFGS(Optimizer):
    """L-BFGS: each `step(closure)` runs up to `max_iter` iterations (at most `max_eval` closure
    calls) along the quasi-Newton direction of the last `history_size` curvature pairs, with a
    fixed step `lr` (the first one scaled by min(1, 1/‖g‖₁)) or a strong-Wolfe line search
    (`line_search_fn="strong_wolfe"`). It stops early when the gradient's largest magnitude is at
    most `tolerance_grad` or the step or loss changes by at most `tolerance_change`. One parameter
    group only; its state (kept under the first parameter) carries over between steps, as
    PyTorch's."""

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        check_non_negative(lr=lr)
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_iter * 5 // 4 if max_eval is None else max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params: list[Tensor] = self.param_groups[0]["params"]

    @staticmethod
    def _real(tensor: Tensor) -> Tensor:
        """A complex tensor's real view (a trailing dim of 2); a real one as it is."""
        return framework.view_as_real(tensor) if tensor.is_complex() else tensor

    def _gather_flat_grad(self) -> Tensor:
        """The parameters' gradients as one flat vector (zeros for a parameter without one)."""
        views = []
        for p in self._params:
            grad = p.grad
            view = framework.zeros(p.numel(), dtype=p.dtype) if grad is None else grad.view(-1)
            views.append(self._real(view).view(-1))
        return framework.cat(views, 0)

    def _add_grad(self, step_size: Real, update: Tensor) -> None:
        """Move the parameters by `step_size` times the flat vector `update`."""
        offset = 0
        for p in self._params:
            real = self._real(p)
            numel = real.numel()
            real.add_(update[offset : offset + numel].view_as(real), alpha=float(step_size))
            offset += numel

    def _evaluate_along(self, closure: Callable[[], Any], d: Tensor, step: Real) -> tuple[float, Tensor]:
        """The loss and flat gradient at the parameters moved by `step`·`d`; the parameters are
        restored afterwards."""
        start = [p.clone() for p in self._params]
        self._add_grad(step, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        for p, value in zip(self._params, start, strict=True):
            p.copy_(value)
        return loss, flat_grad

    @no_grad()
    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Up to `max_iter` L-BFGS iterations; `closure` (required) zeroes the gradients, computes the
        loss, backpropagates and returns it. Returns the loss first computed."""
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        evaluate = enable_grad()(closure)

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        opt_cond = flat_grad.abs().max() <= tolerance_grad
        if opt_cond:
            return orig_loss

        # What the last step left (None before the first): direction, step length, curvature pairs
        # (y, s) with 1/(y·s), the initial inverse-Hessian scale, last gradient and loss.
        d: Any = state.get("d")
        t: Real = state.get("t")
        old_dirs: Any = state.get("old_dirs")
        old_stps: Any = state.get("old_stps")
        ro: Any = state.get("ro")
        h_diag: Real = state.get("H_diag")
        prev_flat_grad: Any = state.get("prev_flat_grad")
        prev_loss: Any = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                h_diag = 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        del old_dirs[0], old_stps[0], ro[0]
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                # The two-loop recursion: d = -H·g for the inverse Hessian H of the history.
                al = state.setdefault("al", [None] * history_size)
                q = flat_grad.neg()
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=-float(al[i]))
                d = framework.mul(q, h_diag)
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(d) * ro[i]
                    d.add_(old_stps[i], alpha=float(al[i] - be_i))
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    functools.partial(self._evaluate_along, evaluate, d),
                    d,
                    _Point(0, loss, flat_grad, gtd),
                    t,
                    tolerance_change,
                    max_ls=max_eval - current_evals,
                )
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # Not after the last iteration: its loss would go unused.
                    loss = float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break

        state.update(
            d=d,
            t=t,
            old_dirs=old_dirs,
            old_stps=old_stps,
            ro=ro,
            H_diag=h_diag,
            prev_flat_grad=prev_flat_grad,
            prev_loss=prev_loss,
        )
        return orig_loss
