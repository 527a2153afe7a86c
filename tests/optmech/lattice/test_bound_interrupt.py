"""Ctrl-C while a lattice bracket narrows keeps the bracket reached, certified.

The interrupt is raised from the progress ``log`` (called at every improvement of the
bracket), so it lands inside the loop at a known point, with no timing involved.  Reference:
the exact optimum of ``solve_lattice`` (HiGHS, certified to 1e-7)."""

from __future__ import annotations

import functools

import pytest

from lp_models.lattice import reduced_lattice_lp
from optmech.lattice.bound import bound_lattice, bound_with_ratios
from optmech.lattice.optimum import solve_lattice
from optmech.lattice.ratios import optimality_ratios

exact_optimum = functools.lru_cache(maxsize=None)(solve_lattice)


def _interrupt_at(call: int):
    """A ``log`` that raises KeyboardInterrupt at its ``call``-th line."""
    seen = []

    def log(line: str) -> None:
        seen.append(line)
        if len(seen) == call:
            raise KeyboardInterrupt
    return log


@pytest.mark.parametrize("call", [1, 3])
def test_an_interrupted_bracket_is_certified_and_carried_by_the_interrupt(call):
    with pytest.raises(KeyboardInterrupt) as stop:
        bound_lattice(5, 5, 0.5, tol=1e-12, log=_interrupt_at(call))
    bracket = stop.value.bracket
    optimum = exact_optimum(5, 5, 0.5)
    assert bracket.status == "interrupted"
    assert bracket.lower <= optimum.total_error <= bracket.upper
    assert bracket.relative_width > 1e-12          # it did not finish
    full = reduced_lattice_lp(5, 5, 0.5, constraints="regular")
    assert full.max_violation(bracket.probabilities) <= 1e-12
    # the first report is PF's value: the upper bound is PF's until the loop improves it
    if call == 1:
        assert bracket.upper == pytest.approx(bracket.pf_total_error, rel=1e-13)


def test_the_ratios_come_with_the_interrupted_bracket():
    with pytest.raises(KeyboardInterrupt) as stop:
        bound_with_ratios(4, 4, 0.5, ["pf", "em"], tol=1e-12, log=_interrupt_at(2))
    bracket, ratios = stop.value.bracket, stop.value.ratios
    exact = optimality_ratios(exact_optimum(4, 4, 0.5), ["pf", "em"])
    for name, (lo, hi) in ratios.items():
        assert lo <= exact[name] <= hi, name
        assert lo == pytest.approx(bracket.pf_total_error / bracket.upper, rel=1e-12) \
            if name == "pf" else lo > 0


def test_an_interrupt_before_the_bracket_exists_is_plain():
    def early(*_):
        raise KeyboardInterrupt

    import optmech.lattice.bound as bound

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bound, "pf_lattice_probabilities", early)
        with pytest.raises(KeyboardInterrupt) as stop:
            bound_lattice(4, 4, 0.5)
    assert getattr(stop.value, "bracket", None) is None
