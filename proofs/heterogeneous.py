"""Identities of the heterogeneous-sensitivities paper (``heterogeneous-sensitivities.txt``).

RNMH adds noise scaled by each candidate's own sensitivity ``Delta_a`` (exponential noise of
mean ``2 Delta_a / eps``, or Laplace of scale ``Delta_a / eps``); Section IV-A and Appendix A
show it is not differentially private.  GEM (Section IV-C) maps the scores to
``q'(a) = min_{a'} [(q_a - q_a') - t (Delta_a - Delta_a')] / (Delta_a + Delta_a')`` and runs
report-noisy-max on ``q'``; mGEM (Section IV-D) flips the sign of ``t``.
"""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import sympy

from proofs.evidence import sym
from proofs.registry import identity, verified_if

PAPER = "heterogeneous"
FILE = "heterogeneous-sensitivities.txt"


@identity(
    "heterogeneous.rnmh_counterexample",
    paper=PAPER,
    statement="Section IV-A: candidate 1 (sensitivity 0, score 0 in D and D') against candidate 2 "
              "(sensitivity 1, score 1/2 in D, -1/2 in D'), exponential noise of mean 2 Delta/eps: "
              "RNMH outputs candidate 1 with probability 0 under D and 1 - e^{-eps/4} under D', "
              "so it is not eps'-DP for any eps'.",
    sympy="And(Eq(P_D(1), 0), Eq(P_Dprime(1), 1 - exp(-epsilon/4)))",
    source=f"{FILE}, Section IV-A (RNMH counter-example)",
    methods=("symbolic simplification",),
)
def check_rnmh_counterexample():
    from optmech.noisy_max import noisy_max_pmf

    eps, z = sympy.symbols("epsilon z", positive=True)
    rate = eps / 2                                          # Exp with mean 2 Delta/eps, Delta = 1
    density = rate * sympy.exp(-rate * z)
    under_d = 0        # under D candidate 2 scores 1/2 + z > 0 = candidate 1's score
    under_dprime = sympy.integrate(density, (z, 0, sympy.Rational(1, 2)))   # -1/2 + z < 0
    gap = sympy.simplify(under_dprime - (1 - sympy.exp(-eps / 4)))
    worst = 0.0
    for e in (0.1, 1.0, 5.0):
        d = noisy_max_pmf([0.0, 0.5], [0.0, 2 / e], "exponential")
        dp = noisy_max_pmf([0.0, -0.5], [0.0, 2 / e], "exponential")
        worst = max(worst, abs(d[0]), abs(dp[0] - (-np.expm1(-e / 4))))
    evidence = "\n".join([
        f"under D the noisy score of candidate 2 is 1/2 + z > 0 for every z > 0, so Pr[1] = "
        f"{under_d}; under D', Pr[1] = Pr[z < 1/2] = {sym(under_dprime)} (minus 1 - e^(-eps/4): "
        f"{sym(gap)}).  A zero against a positive probability breaks eps'-DP for every eps'.",
        "optmech.noisy_max.noisy_max_pmf (scales 0 and 2/eps, exponential noise) reproduces both "
        f"probabilities {'' if worst < 1e-12 else 'NOT '}to within 1e-12 at eps = 0.1, 1, 5.",
    ])
    return verified_if(gap == 0 and worst < 1e-12, evidence)


@identity(
    "heterogeneous.rnmh_laplace_counterexample",
    paper=PAPER,
    statement="Appendix A: with Laplace noise of scale Delta_a/eps, candidate 1 (sensitivity 0, "
              "score 0) against k-1 candidates of sensitivity 1 (scores 0 in D1, 1 in D2): "
              "Pr[M(D1) = 1]/Pr[M(D2) = 1] = (1/2)^{k-1}/((e^{-eps}/2)^{k-1}) = e^{(k-1) eps}.",
    sympy="Eq((Rational(1, 2))**(k - 1)/(exp(-epsilon)/2)**(k - 1), exp((k - 1)*epsilon))",
    source=f"{FILE}, Appendix A (counter-example with Laplace noise, equations (8)-(15))",
    methods=("symbolic simplification",),
)
def check_rnmh_laplace():
    from optmech.noisy_max import noisy_max_pmf

    eps, z = sympy.symbols("epsilon z", positive=True)
    k = sympy.Symbol("k", integer=True, positive=True)
    laplace = eps / 2 * sympy.exp(-eps * sympy.Abs(z))
    below_zero = sympy.integrate(laplace.subs(sympy.Abs(z), -z), (z, -sympy.oo, 0))
    below_minus_one = sympy.integrate(laplace.subs(sympy.Abs(z), -z), (z, -sympy.oo, -1))
    ratio = sympy.simplify((below_zero / below_minus_one) ** (k - 1) - sympy.exp((k - 1) * eps))
    worst = 0.0
    for kk in (2, 3, 5):
        for e in (0.5, 2.0):
            d1 = noisy_max_pmf([0.0] * kk, [0.0] + [1 / e] * (kk - 1), "laplace")[0]
            d2 = noisy_max_pmf([0.0] + [1.0] * (kk - 1), [0.0] + [1 / e] * (kk - 1), "laplace")[0]
            worst = max(worst, abs(d1 - 0.5 ** (kk - 1)),
                        abs(d2 - (0.5 * np.exp(-e)) ** (kk - 1)))
    evidence = (f"SymPy: Pr[z < 0] = {sym(below_zero)}, Pr[z < -1] = {sym(below_minus_one)} for "
                f"Laplace(1/eps); the (k-1)-th power of their ratio minus e^((k-1) eps) is "
                f"{sym(ratio)}.  optmech.noisy_max.noisy_max_pmf reproduces Pr[M(D1)=1] and "
                f"Pr[M(D2)=1] {'' if worst < 1e-12 else 'NOT '}to within 1e-12 for k = 2, 3, 5 "
                "and eps = 0.5, 2.")
    return verified_if(ratio == 0 and below_zero == sympy.Rational(1, 2) and worst < 1e-12,
                       evidence)


def _gem_scores(q, sens, t):
    """GEM's normalised scores, equation (6), exactly (fractions)."""
    return [min(((qa - qb) - t * (da - db)) / (da + db) for qb, db in zip(q, sens))
            for qa, da in zip(q, sens)]


@identity(
    "heterogeneous.gem_normalised_scores",
    paper=PAPER,
    statement="Section IV-C: GEM's normalised score q'(a) = min_{a'} [(q_a - q_a') - t(Delta_a - "
              "Delta_a')]/(Delta_a + Delta_a') has sensitivity at most 1, is <= 0, and its maximum "
              "is 0, attained at the maximiser of q_a - t Delta_a.",
    sympy="Eq(Max(qprime(a)), 0)",
    source=f"{FILE}, Section IV-C, equations (6)-(7)",
    methods=("exact rational arithmetic", "symbolic simplification"),
)
def check_gem_scores():
    qa, qb, da, db, t, za, zb = sympy.symbols("q_a q_b Delta_a Delta_b t z_a z_b", real=True)
    term = ((qa - qb) - t * (da - db)) / (da + db)
    change = sympy.simplify(term.subs({qa: qa + za, qb: qb + zb}) - term)
    rng = random.Random(11)
    trials, bad = 0, 0
    for _ in range(300):
        n = rng.randint(2, 6)
        sens = [Fraction(rng.randint(1, 20), 4) for _ in range(n)]
        q = [Fraction(rng.randint(-40, 40), 3) for _ in range(n)]
        t_val = Fraction(rng.randint(-30, 30), 7)
        base = _gem_scores(q, sens, t_val)
        top = max(range(n), key=lambda a: q[a] - t_val * sens[a])
        bad += not (max(base) == 0 and base[top] == 0 and all(v <= 0 for v in base))
        for _ in range(4):              # extreme neighbours: every score moves by +-Delta_a
            moved = [qi + rng.choice((-1, 1)) * di for qi, di in zip(q, sens)]
            new = _gem_scores(moved, sens, t_val)
            bad += any(abs(x - y) > 1 for x, y in zip(base, new))
            trials += 1
    evidence = (f"SymPy: one term changes by {sym(change)} when q_a, q_a' move by z_a, z_a' "
                "(|z_a| <= Delta_a, |z_a'| <= Delta_a'), so by at most 1, and a minimum of "
                "1-Lipschitz terms is 1-Lipschitz; the term with a' = a is 0, so q' <= 0.\n"
                f"exact fractions, 300 random instances (2-6 candidates, t of both signs) and "
                f"{trials} extreme neighbours: max q' = 0 at argmax(q_a - t Delta_a), and no score "
                f"moved by more than 1 ({bad} exceptions).")
    return verified_if(bad == 0, evidence)


@identity(
    "heterogeneous.gem_mgem_utility_bounds",
    paper=PAPER,
    statement="Section IV-D: from q'_chosen >= -2 log(|A|/beta)/eps (= -L), q_chosen >= q_j - "
              "Delta_chosen (L - t) - Delta_j (L + t) for every j; t = L (GEM) gives q_chosen >= "
              "max_j {q_j - Delta_j 4 log(|A|/beta)/eps}; t = -L (mGEM) gives q_chosen >= "
              "max_j q_j - Delta_chosen 4 log(|A|/beta)/eps.",
    sympy="GreaterThan(q_hat, q_j - Delta_hat*(L - t) - Delta_j*(L + t))",
    source=f"{FILE}, Section IV-D (utility bound algebra for GEM and mGEM)",
    methods=("symbolic simplification", "exact rational arithmetic"),
)
def check_gem_bounds():
    qh, qj, dh, dj, t, L = sympy.symbols("q_hat q_j Delta_hat Delta_j t L", real=True)
    term = ((qh - qj) - t * (dh - dj)) / (dh + dj)
    # q'_hat <= term (the min over a' includes a' = j) and q'_hat >= -L; multiply by dh + dj > 0
    rearranged = sympy.expand((term + L) * (dh + dj))
    printed = sympy.expand(qh - (qj - dh * (L - t) - dj * (L + t)))
    same = sympy.simplify(rearranged - printed)
    gem = sympy.simplify(printed.subs(t, L) - (qh - (qj - dj * 2 * L)))
    mgem = sympy.simplify(printed.subs(t, -L) - (qh - (qj - dh * 2 * L)))
    rng = random.Random(12)
    bad, cases = 0, 0
    for _ in range(300):
        n = rng.randint(2, 6)
        sens = [Fraction(rng.randint(1, 20), 4) for _ in range(n)]
        q = [Fraction(rng.randint(-40, 40), 3) for _ in range(n)]
        L_val = Fraction(rng.randint(1, 40), 5)
        for t_val, name in ((L_val, "gem"), (-L_val, "mgem")):
            scores = _gem_scores(q, sens, t_val)
            for h in range(n):
                if scores[h] < -L_val:           # only selections that meet the premise
                    continue
                cases += 1
                if name == "gem":
                    ok = q[h] >= max(q[j] - 2 * L_val * sens[j] for j in range(n))
                else:
                    ok = q[h] >= max(q) - 2 * L_val * sens[h]
                bad += not ok
    evidence = "\n".join([
        f"SymPy: (term + L)(Delta_hat + Delta_j) minus (q_hat - [q_j - Delta_hat (L - t) - "
        f"Delta_j (L + t)]) = {sym(same)}, so q'_hat >= -L and q'_hat <= term give the printed "
        f"inequality; at t = L it reads q_hat >= q_j - 2 L Delta_j (difference {sym(gem)}), i.e. "
        f"the GEM bound with 2L = 4 log(|A|/beta)/eps; at t = -L it reads q_hat >= q_j - 2 L "
        f"Delta_hat (difference {sym(mgem)}), the mGEM bound (error scales with the chosen "
        "candidate's sensitivity).",
        f"exact fractions: {cases} (instance, selection) pairs meeting q'_hat >= -L satisfy the "
        f"GEM / mGEM bound ({bad} exceptions).",
        "The premise q'_hat >= q'_best - L with probability >= 1 - beta is the exponential "
        "mechanism's tail bound (permute-and-flip paper, Proposition 1 / Corollary 1 with "
        "t = log(1/beta)), for RNM on q' of sensitivity 1.",
    ])
    return verified_if(same == 0 and gem == 0 and mgem == 0 and bad == 0 and cases > 0, evidence)
