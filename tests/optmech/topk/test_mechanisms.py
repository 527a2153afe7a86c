"""Mechanisms as values, their names, their validation and their stated guarantees."""

import numpy as np
import pytest

from optmech.selection.mechanisms import PrivacyGuarantee
from optmech.topk import (
    TOPK_MECHANISMS,
    CanonicalLipschitz,
    GumbelTopK,
    JointEM,
    JointPF,
    PeelingEM,
    PeelingPF,
    make_topk_mechanism,
)
from optmech.validation import InvalidArgumentError

CLASSES = {"peel-em": PeelingEM, "peel-pf": PeelingPF, "gumbel": GumbelTopK,
           "joint-em": JointEM, "joint-pf": JointPF, "canonical-lipschitz": CanonicalLipschitz}


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
def test_names_build_their_class_and_values_compare(name):
    mechanism = make_topk_mechanism(name.replace("-", "_"), 1.5, 3, 2.0, True)
    assert type(mechanism) is CLASSES[name] and mechanism.name == name
    assert (mechanism.epsilon, mechanism.top, mechanism.sensitivity, mechanism.monotonic) \
        == (1.5, 3, 2.0, True)
    rebuilt = eval(repr(mechanism), {type(mechanism).__name__: type(mechanism)})
    assert rebuilt == mechanism and hash(rebuilt) == hash(mechanism)
    assert mechanism != make_topk_mechanism(name, 1.5, 2, 2.0, True)
    assert {mechanism, rebuilt} == {mechanism}


@pytest.mark.parametrize("call, argument", [
    (lambda: make_topk_mechanism("peel", 1.0, 2), "mechanism"),
    (lambda: make_topk_mechanism("peel-em", 0.0, 2), "epsilon"),
    (lambda: make_topk_mechanism("peel-em", 1.0, 0), "top"),
    (lambda: make_topk_mechanism("peel-em", 1.0, 2, -1.0), "sensitivity"),
    (lambda: make_topk_mechanism("peel-em", 1.0, 2, 1e-320), "sensitivity"),
    (lambda: make_topk_mechanism("peel-em", 1.0, 2, monotonic="yes"), "monotonic"),
    (lambda: make_topk_mechanism("joint-em", 1.0, 3).pmf([1.0, 2.0]), "scores"),
    (lambda: make_topk_mechanism("joint-em", 1.0, 2).pmf([1.0, np.nan]), "scores"),
    (lambda: make_topk_mechanism("joint-em", 1.0, 2).pmf([-1e308, 1e308]), "scores"),
    (lambda: make_topk_mechanism("joint-em", 1.0, 2).expected_error([1, 2], "l2"), "measure"),
    (lambda: make_topk_mechanism("joint-em", 1.0, 2).sample([[1, 2], [3, 4]]), "scores"),
    (lambda: make_topk_mechanism("joint-em", 1.0, 2).sample([1, 2], size=-1), "size"),
    (lambda: make_topk_mechanism("joint-em", 1.0, 2).sample([1, 2], rng="x"), "rng"),
])
def test_bad_input_names_the_argument(call, argument):
    with pytest.raises(InvalidArgumentError) as error:
        call()
    assert error.value.argument == argument


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
@pytest.mark.parametrize("monotonic", [False, True])
def test_each_guarantee_names_its_relation_paper_and_calibration(name, monotonic):
    mechanism = make_topk_mechanism(name, 0.7, 3, 1.0, monotonic)
    guarantee = mechanism.privacy
    assert isinstance(guarantee, PrivacyGuarantee)
    assert (guarantee.epsilon, guarantee.delta) == (0.7, 0.0)
    text = guarantee.statement
    assert ("add/remove" in text) == monotonic and ("general relation" in text) != monotonic
    assert f"{mechanism.exponent:.6g}" in text
    paper = {"peel-em": "McSherry-Talwar", "gumbel": "arXiv:1905.04273",
             "peel-pf": "McKenna-Sheldon 2020, Theorem 1", "joint-em": "arXiv:2201.12333",
             "joint-pf": "pnf_joint", "canonical-lipschitz": "arXiv:2201.13376"}[name]
    assert paper in text
    assert ("Theorem 3.16" in text) == name.startswith(("peel", "gumbel"))


def test_exponents_follow_the_calibration_table():
    """The table of optmech.topk.mechanisms: eps / (c T Δ) for peeling, eps / (c Δ_u) for
    the joint and canonical mechanisms with Δ_u = 2Δ (general) or Δ (add/remove)."""
    eps, delta = 1.2, 0.5
    for monotonic, c in ((False, 2), (True, 1)):
        for top in (1, 4):
            for name in ("peel-em", "peel-pf", "gumbel"):
                assert make_topk_mechanism(name, eps, top, delta, monotonic).exponent == \
                    pytest.approx(eps / (c * top * delta))
            for name in ("joint-em", "joint-pf", "canonical-lipschitz"):
                expected = eps / (c * delta) if top == 1 else \
                    eps / (2 * delta * (1 if monotonic else 2))
                assert make_topk_mechanism(name, eps, top, delta, monotonic).exponent == \
                    pytest.approx(expected)
