"""The private secretary problem: exact privacy analysis of the paper's p-mix stopping rule,
and the optimal (ε, δ)-DP stopping rule by linear programming.

K. Grining, M. Klonowski and M. Sulkowska, *What Do Our Choices Say About Our
Preferences?*, arXiv:2005.01586 (version 4; version 1 differs in places, said where it
matters): Sections 3-5 (Fact 2, Theorems 3.1-5.3, Corollaries 2-3, the asymptotics a_k).

Modules, one concern each:

* :mod:`~optmech.secretary.classical`: threshold t_n, rank distribution r_{k,n} of the
  optimal rule M* (float, stable to n = 10^6 and beyond; exact fractions), a_k; the k = 1
  erratum of Fact 2 / Theorem 5.1 is corrected there;
* :mod:`~optmech.secretary.mixing`: blind choice and p-mixes of rank distributions;
* :mod:`~optmech.secretary.privacy`: tight δ(ε) and ε(δ) under d_l (Theorem 3.2),
  Theorem 4.1's bound, Theorem 4.2 / Corollaries 2-3 exact and asymptotic, largest p;
* :mod:`~optmech.secretary.rules`: rank-based stopping rules (stopping probabilities per
  time and relative rank), M*, blind choice, classical optima for any rank payoff;
* :mod:`~optmech.secretary.simulation`: Monte Carlo and exhaustive enumeration of rules on
  arrival orders;
* :mod:`~optmech.secretary.optimal`: the optimal private rule (LP of
  :mod:`lp_models.stopping`) against the best p-mix.
"""

from optmech._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "optmech.secretary.classical": (
        "a_coefficients", "asymptotic_rank_distribution", "rank_distribution",
        "rank_distribution_as_printed", "rank_distribution_exact", "success_probability",
        "threshold",
    ),
    "optmech.secretary.mixing": ("blind_choice", "mix", "pmix_rank_distribution"),
    "optmech.secretary.optimal": (
        "ConvergenceError", "PmixComparison", "PrivateStoppingRule", "best_pmix",
        "compare_with_pmix", "optimal_private_rule",
    ),
    "optmech.secretary.privacy": (
        "PmixBound", "asymptotic_delta", "asymptotic_epsilon", "asymptotic_largest_p",
        "delta_for_epsilon", "epsilon_for_delta", "largest_mix_weight", "mix_bound", "pmix_delta",
        "pmix_epsilon", "pmix_largest_p",
    ),
    "optmech.secretary.rules": (
        "StoppingRule", "absolute_rank_probabilities", "blind_choice_rule", "classical_rule",
        "deterministic_rule", "mix_rules", "optimal_rule_for_payoff",
    ),
    "optmech.secretary.simulation": ("enumerate_rank_distribution", "simulate_ranks"),
})
