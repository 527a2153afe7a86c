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
from proofs.registry import erratum_if, identity, verified_if

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
    from optmech.selection.noisy_max import noisy_max_pmf

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
        "optmech.selection.noisy_max.noisy_max_pmf (scales 0 and 2/eps, exponential noise) reproduces both "
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
    from optmech.selection.noisy_max import noisy_max_pmf

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
                f"{sym(ratio)}.  optmech.selection.noisy_max.noisy_max_pmf reproduces Pr[M(D1)=1] and "
                f"Pr[M(D2)=1] {'' if worst < 1e-12 else 'NOT '}to within 1e-12 for k = 2, 3, 5 "
                "and eps = 0.5, 2.")
    return verified_if(ratio == 0 and below_zero == sympy.Rational(1, 2) and worst < 1e-12,
                       evidence)


@identity(
    "heterogeneous.rnmh_laplace_privacy_bound",
    paper=PAPER,
    statement="Section IV-A: RNMH with Laplace noise of scale Delta_a/eps is (k-1) eps-DP for k "
              "candidates (and this is tight).",
    sympy="LessThan(privacy_loss(RNMH_Laplace, k), (k - 1)*epsilon)",
    source=f"{FILE}, Section IV-A (paragraph after the exponential-noise counter-example)",
    methods=("symbolic simplification", "asymptotic limit"),
)
def check_rnmh_laplace_bound():
    from optmech.selection.noisy_max import noisy_max_pmf
    from optmech.selection.privacy import realised_epsilon

    eps, b, g, x = sympy.symbols("epsilon b g x", positive=True)
    # W = Z_2 - Z_1 for i.i.d. Laplace(b): Pr[W > x] = (2 + x/b) e^{-x/b} / 4 for x >= 0.
    tail = (2 + x / b) * sympy.exp(-x / b) / 4
    density = sympy.exp(-sympy.Abs(x) / b) / (2 * b)
    conv = sympy.integrate(density.subs(sympy.Abs(x), x) * sympy.exp(-(x + g) / b) / 2,
                           (x, 0, sympy.oo)) + sympy.integrate(
        density.subs(sympy.Abs(x), -x) * sympy.exp(-(x + g) / b) / 2, (x, -g, 0)) + \
        sympy.integrate(density.subs(sympy.Abs(x), -x) * (1 - sympy.exp((x + g) / b) / 2),
                        (x, -sympy.oo, -g))
    tail_ok = sympy.simplify(conv - tail.subs(x, g)) == 0
    # Two candidates of sensitivity 1, b = 1/eps.  D: scores (0, -g); D': (-1, -g + 1), a
    # neighbour (each score moved by 1).  Output 2 needs W > g under D and W > g - 2 under D'.
    loss = sympy.log(tail.subs(x, g - 2) / tail.subs(x, g)).subs(b, 1 / eps)
    limit = sympy.limit(loss, g, sympy.oo)
    at_20 = float(loss.subs({eps: 1, g: 20}))
    numeric = noisy_max_pmf([-1.0, -19.0], 1.0, "laplace")[1] / \
        noisy_max_pmf([0.0, -20.0], 1.0, "laplace")[1]
    rng = np.random.default_rng(5)
    worst_ratio = 0.0
    for _ in range(40):
        k = int(rng.integers(2, 5))
        sens = rng.choice([0.0, 0.5, 1.0, 2.0], size=k)
        if sens.max() == 0:
            continue
        e = float(rng.uniform(0.3, 2.0))
        q = rng.normal(size=k) * 3
        m = int((sens > 0).sum())
        check = realised_epsilon(lambda v, s=sens, e=e: noisy_max_pmf(v, s / e, "laplace"), q,
                                 sensitivity=sens, levels=3)
        worst_ratio = max(worst_ratio, check.epsilon / (m * e))
    printed_fails = at_20 > 1.0 and abs(float(np.log(numeric)) - at_20) < 1e-9
    corrected_holds = tail_ok and sympy.simplify(limit - 2 * eps) == 0 and \
        worst_ratio <= 1 + 1e-9
    evidence = "\n".join([
        "SymPy: for i.i.d. Laplace(b) noise, Pr[Z_2 - Z_1 > g] = (2 + g/b) e^(-g/b) / 4 "
        f"(convolution integral {'confirmed' if tail_ok else 'NOT confirmed'}).",
        "k = 2, Delta = (1, 1), scale 1/eps: D = (0, -g), D' = (-1, -g + 1) are neighbours; the "
        f"privacy loss of output 2 is {sym(loss)}, which tends to {sym(limit)} as g -> oo.",
        f"at eps = 1, g = 20 the loss is {at_20:.6f} > (k - 1) eps = 1 "
        "(optmech.selection.noisy_max.noisy_max_pmf gives the same ratio to 1e-9).",
        "Corrected bound: the noisy scores are a product of m Laplace mechanisms "
        "(m = #{a : Delta_a > 0}; a candidate with Delta_a = 0 does not change), each eps-DP, "
        "and the selection is post-processing, so RNMH-Laplace is (m eps)-DP; the k = 2 limit "
        "2 eps shows it is tight.  Numerically (40 random instances, k = 2..4, sensitivities "
        "in {0, 1/2, 1, 2}, worst-case and lattice neighbours): realised loss / (m eps) <= "
        f"{'1' if worst_ratio <= 1 + 1e-9 else 'MORE THAN 1'}.",
        "The Appendix A example (one candidate with Delta = 0, k - 1 with Delta = 1) has m = k - 1, "
        "which is why it attains (k - 1) eps.",
    ])
    return erratum_if(printed_fails, corrected_holds, evidence,
                      corrected="RNMH with Laplace noise of scale Delta_a/eps is (m eps)-DP, "
                                "m = number of candidates with Delta_a > 0; tight (k = 2, "
                                "Delta = (1, 1): loss -> 2 eps).",
                      counterexample=f"k = 2, Delta = (1, 1), eps = 1, scores (0, -20) vs "
                                     f"(-1, -19): loss of output 2 = {at_20:.6f} > 1.")


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


@identity(
    "heterogeneous.library_agrees",
    paper=PAPER,
    statement="optmech.heterogeneous.gem_scores (O(n log n), convex hull and tangent queries) "
              "equals GEM's normalised score, equation (6), computed exactly with fractions; "
              "the library's RNMH object reproduces the Section IV-A counter-example.",
    sympy="Eq(gem_scores(q, Delta, t), qprime(q, Delta, t))",
    source=f"{FILE}, Section IV-A and equation (6); as implemented in "
           "optmech/heterogeneous/gem_transform.py and optmech/heterogeneous/noisy_max.py",
    methods=("exact rational arithmetic",),
)
def check_library_heterogeneous():
    from optmech.heterogeneous import HeterogeneousNoisyMax, gem_scores

    rng = random.Random(13)
    worst, instances = 0.0, 0
    for _ in range(200):
        n = rng.randint(1, 40)
        sens = [Fraction(rng.randint(1, 40), 8) for _ in range(n)]
        q = [Fraction(rng.randint(-200, 200), 16) for _ in range(n)]   # exact in binary
        t_val = Fraction(rng.randint(-64, 64), 8)
        exact_scores = _gem_scores(q, sens, t_val)
        ours = gem_scores(np.array([float(v) for v in q]), np.array([float(v) for v in sens]),
                          float(t_val))
        worst = max(worst, max(abs(Fraction(float(a)) - b) for a, b in zip(ours, exact_scores)))
        instances += 1
    rnmh = HeterogeneousNoisyMax(1.0, noise="exponential")
    under_d = rnmh.pmf([0.0, 0.5], [0.0, 1.0])[0]
    under_dprime = rnmh.pmf([0.0, -0.5], [0.0, 1.0])[0]
    counter_ok = under_d == 0 and abs(under_dprime - (-np.expm1(-0.25))) < 1e-12 \
        and rnmh.privacy is None
    evidence = (f"{instances} random instances (1-40 candidates, dyadic scores, t of both signs): "
                "gem_scores within 1e-12 of the exact fractions "
                f"({'yes' if worst < 1e-12 else 'NO'}).  HeterogeneousNoisyMax(1, exponential) "
                f"gives Pr[1] = 0 under D and 1 - e^(-1/4) under D', and claims no guarantee: "
                f"{'yes' if counter_ok else 'NO'}.")
    return verified_if(worst < 1e-12 and counter_ok, evidence)
