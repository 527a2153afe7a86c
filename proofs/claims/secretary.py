"""Claims of the private secretary paper (Grining et al., arXiv:2005.01586; numbering of
version 4, with the version-1 claims that version 4 changed)."""

from __future__ import annotations

from functools import partial

from proofs.claims import Claim, Evidence

claim = partial(Claim, paper="secretary")
claim_v1 = partial(Claim, paper="secretary-v1")
T_SEC = "tests/optmech/secretary"
T_ERR = "tests/proofs/test_errata_derivations.py"
T_CLM = "tests/proofs/test_secretary_claims.py"

CLAIMS = (
    claim(id="sec.fact1.threshold", location="§2.2, Fact 1", kind="fact",
          statement="The optimal threshold t_n is the smallest t with 1/t + ... + 1/(n−1) ≤ 1, "
                    "and t_n ~ n/e.",
          outcome="holds", rows=("secretary:fact-1-threshold",),
          identities=("secretary.threshold",),
          tests=(f"{T_SEC}/test_classical.py::test_threshold_against_exact_fractions",)),
    claim(id="sec.fact2.rank-distribution", location="§2.2, Fact 2; Appendix, Theorem 5.1",
          kind="fact",
          statement="The optimal rule selects the k-th best with probability (t_n−1)/n (Σ_i "
                    "C(n−k, i−1)/C(n−1, i−1)/(i−1) + 1/(n−1)).",
          outcome="erratum", rows=("secretary:fact-2-printed-sum", "secretary:fact-2-corrected-sum",
                                   "secretary:theorem-5-1-enumeration"),
          identities=("secretary.rank_distribution", "secretary.rank_distribution_sums_to_one"),
          tests=(f"{T_SEC}/test_classical.py::test_erratum_printed_formula_overcounts_by_the_forced_stop_term",
                 f"{T_SEC}/test_classical.py::test_exact_distribution_equals_enumeration_of_all_arrival_orders"),
          note="For k = 1 the 1/(n−1) term must be dropped (the forced stop never selects the "
               "best); as printed the distribution sums to 1 + (t_n−1)/(n(n−1)).",
          evidence=(
              Evidence("the rule played on all n! arrival orders, exact fractions (n ≤ 8)",
                       f"{T_SEC}/test_classical.py::test_exact_distribution_equals_enumeration_of_all_arrival_orders"),
              Evidence("SymPy sum of the printed formula over k: 1 + (t−1)/(n(n−1))",
                       "secretary.rank_distribution_sums_to_one")),
          text="Version 4 read in arXiv's HTML rendering; version 1 (converted from the PDF) "
               "prints the same formula in Fact 2 and its Theorem 4, and its proof adds the "
               "forced-stop term P[C | σ_k = τ_n] P[σ_k = τ_n] for every k, k = 1 included: "
               "the term is the authors' derivation, not a conversion artefact."),
    claim(id="sec.fact2.win-probability", location="§2.2, Fact 2 (second display)",
          kind="fact",
          statement="The optimal rule selects the best with probability (t_n−1)/n Σ_{i≥t_n} "
                    "1/(i−1) → 1/e ≈ 0.37.",
          outcome="holds", rows=("secretary:fact-2-win-probability",),
          identities=("secretary.win_probability",)),
    claim(id="sec.fact2.asymptotic", location="§2.2, Fact 2 (third display); Appendix, "
          "Theorem 5.2", kind="theorem",
          statement="For k = o(n), r_{k,n} ~ (1/e) Σ_{s≥k} (1 − 1/e)^s / s.",
          outcome="holds", rows=("secretary:theorem-5-2-r2",),
          identities=("secretary.rank_probability_limit",),
          tests=(f"{T_SEC}/test_classical.py::test_asymptotic_rank_probabilities_theorem_5_2",)),
    claim(id="sec.def6.metric", location="§2.3, Definition 6 and Fact 3", kind="fact",
          statement="d_l (fewest swaps of entries at most l apart) is a metric on S_n.",
          outcome="holds", identities=("secretary.example_1_metric",)),
    claim(id="sec.example1", location="§2.3, Example 1", kind="worked example",
          statement="For σ = (1, ..., n) and ρ = (n, 2, ..., n−1, 1): d_1(σ, ρ) = 2n − 3 and "
                    "d_{n−1}(σ, ρ) = 1.",
          outcome="holds", identities=("secretary.example_1_metric",)),
    claim(id="sec.thm3.1.no-constant-success", location="§3, Theorem 3.1", kind="theorem",
          statement="Under d_l with l → ∞, an (ε, δ)-DP rule whose success probability stays "
                    "above δ by a constant needs ε → ∞.",
          outcome="holds", rows=("secretary:theorem-3-1-success",),
          note="The proof's inequalities give P(best) ≤ (e^ε + lδ)/(e^ε + l); the certified "
               "optimal private rule (LP) respects it and falls with l (equality at "
               "l = n − 1)."),
    claim(id="sec.thm3.2.lower-bound", location="§3, Theorem 3.2", kind="theorem",
          statement="A rule with rank probabilities q is (ε, δ)-DP under d_l only if "
                    "ε ≥ max_{|i−j|≤l} ln((q_i − δ)/q_j) (when some pair has q_i − q_j > δ); "
                    "the bound is tight.",
          outcome="holds", identities=("secretary.theorem_4_2_exact",),
          tests=(f"{T_SEC}/test_privacy.py::test_tight_delta_equals_brute_force_over_neighbours_and_events",)),
    claim(id="sec.fact4.blind-choice", location="§4, Fact 4", kind="fact",
          statement="The blind choice (always stop at the first candidate) is (0, 0)-DP for any "
                    "metric: its rank distribution is uniform.",
          outcome="holds",
          tests=(f"{T_CLM}::test_blind_choice_is_zero_zero_private_for_every_metric",)),
    claim(id="sec.fact5.mix-accuracy", location="§4.1, Fact 5", kind="fact",
          statement="A p-mix succeeds with probability at least p times the optimal rule's.",
          outcome="holds",
          tests=(f"{T_CLM}::test_pmix_succeeds_with_at_least_p_times_the_optimal_probability",)),
    claim(id="sec.thm4.1.mixing", location="§4.1, Theorem 4.1", kind="theorem",
          statement="Mixing an (ε, δ)-DP optimal rule with a uniform one gives "
                    "(ln(e^ε − (1−p)(e^ε − 1)/n), pδ)-DP.",
          outcome="holds", rows=("secretary:theorem-4-1-upper-bound",),
          identities=("secretary.theorem_4_1_mixing_bound",),
          tests=(f"{T_SEC}/test_privacy.py::test_theorem_4_1_is_an_upper_bound_on_the_exact_mix",)),
    claim(id="sec.fact6.mix-success", location="§4.2, Fact 6 and equation (3)", kind="fact",
          statement="The p-mix of M* and the blind choice selects the best with probability "
                    "p r_{1,n} + (1−p)/n ~ p/e.",
          outcome="holds", identities=("secretary.win_probability",),
          tests=(f"{T_SEC}/test_rules.py::test_pmix_rule_has_the_pmix_distribution",)),
    claim(id="sec.cor1.mix-asymptotic", location="§4.2, Corollary 1", kind="corollary",
          statement="q_{k,n} ~ (p/e) a_k for k = o(n), with a_k = Σ_{s≥k} (1 − 1/e)^s / s.",
          outcome="holds", identities=("secretary.rank_probability_limit",
                                       "secretary.theorem_4_2_asymptotic")),
    claim(id="sec.a1-a2", location="§4.2, after Corollary 1", kind="number in text",
          statement="a_1 = 1 and a_2 = 1/e.",
          outcome="holds", rows=("secretary:a1", "secretary:a2"),
          identities=("secretary.a_k_closed_form",),
          tests=(f"{T_SEC}/test_classical.py::test_a_coefficients_against_mpmath",)),
    claim(id="sec.lemma1.non-increasing", location="§4.2, Lemma 1; Appendix, Corollary 4",
          kind="lemma",
          statement="q_{k,n} (and r_{k,n}) do not increase in k.",
          outcome="holds", identities=("secretary.lemma3_difference_recurrence",),
          tests=(f"{T_SEC}/test_classical.py::test_lemma_3_recurrence_in_fractions_with_the_k1_correction",),
          note="Holds for the true probabilities (Lemma 3's recurrence needs a correction at "
               "k = 1, but every difference stays ≥ 0)."),
    claim(id="sec.lemma2.worst-pair", location="§4.2, Lemma 2", kind="lemma",
          statement="For n ≥ 7, (q_1 − δ)/q_{l+1} ≥ (q_k − δ)/q_{k+l} for every k, so the pair "
                    "(1, l + 1) is the worst.",
          outcome="holds", rows=("secretary:lemma-2-n7", "secretary:lemma-2-smallest-n"),
          identities=("secretary.lemma2_ratio_ordering",),
          note="Holds; the range is not sharp: the ordering holds from n = 5 (fails at n = 3, 4)."),
    claim(id="sec.thm4.2.exact", location="§4.2, Theorem 4.2", kind="theorem",
          statement="For n ≥ 7 the p-mix is (ε, δ)-DP iff ε ≥ ln((q_1 − δ)/q_{l+1}) (when "
                    "δ < q_1 − q_{l+1}); tight.",
          outcome="holds", identities=("secretary.theorem_4_2_exact",),
          tests=(f"{T_SEC}/test_privacy.py::test_closed_forms_equal_the_exact_value_for_n_at_least_7",)),
    claim(id="sec.thm4.2.asymptotic", location="§4.2, Theorem 4.2", kind="closed form",
          statement="ln((q_1 − δ)/q_{l+1}) ~ ln((p − δe)/(a_{l+1} p)).",
          outcome="holds", identities=("secretary.theorem_4_2_asymptotic",)),
    claim(id="sec.cor2", location="§4.2, Corollary 2", kind="corollary",
          statement="The p-mix is (ε, δ)-DP iff δ ≥ q_1 − e^ε q_{l+1} ~ (p/e)(1 − a_{l+1} e^ε).",
          outcome="holds", identities=("secretary.corollary_2",)),
    claim(id="sec.cor3", location="§4.2, Corollary 3", kind="corollary",
          statement="The p-mix is (ε, δ)-DP iff p ≤ (δ + (e^ε−1)/n)/(r_1 − e^ε r_{l+1} + "
                    "(e^ε−1)/n) ~ eδ/(1 − e^ε a_{l+1}).",
          outcome="holds", identities=("secretary.corollary_3",),
          tests=(f"{T_SEC}/test_privacy.py::test_largest_p_is_tight",)),
    claim(id="sec.fig1-3.regions", location="§4.2, Figures 1-3", kind="figure",
          statement="The asymptotic (ε, δ) privacy region of the p-mix, and its boundary for "
                    "several p (given l) and several l (given p).",
          outcome="holds", rows=("secretary:figures-1-3",),
          identities=("secretary.theorem_4_2_asymptotic",),
          note="Redrawn from the verified asymptotic boundary of Theorem 4.2."),
    claim(id="sec.fig4.eps-below-one", location="§4.2, Figure 4 and text", kind="figure",
          statement="At δ = 0.01 (metric d_1) ε does not exceed 1 even for p = 1.",
          outcome="holds", rows=("secretary:section-4-2-eps-delta-0.01",),
          identities=("secretary.section_4_2_examples",)),
    claim(id="sec.fig5.p-0.35", location="§4.2, Figure 5 and text", kind="figure",
          statement="At ε = 0.5, δ ≤ 0.05 needs p around 0.35.",
          outcome="holds", rows=("secretary:section-4-2-p-0.35",),
          identities=("secretary.section_4_2_examples",)),
    claim(id="sec.fig6.eps-0.85", location="§4.2, Figure 6 and text", kind="figure",
          statement="At δ = 0.05, p = 1 suffices once ε ≈ 0.85 or more.",
          outcome="holds", rows=("secretary:section-4-2-eps-0.85",),
          identities=("secretary.section_4_2_examples",)),
    claim(id="sec.sec4.2.figure-references", location="§4.2, text around Figures 1-6",
          kind="figure",
          statement="The text cites Figure 2 for the boundaries over p, Figure 3 for those over "
                    "l, Figure 4 for ε at δ = 0.01, Figure 5 for δ at ε = 0.5 and Figure 6 for p "
                    "at δ = 0.05.",
          outcome="holds",
          rows=("secretary:figures-1-3", "secretary:section-4-2-eps-delta-0.01",
                "secretary:section-4-2-p-0.35", "secretary:section-4-2-eps-0.85"),
          note="Version 1 (converted from the PDF) cites each figure by its own number, and "
               "the rows recompute each figure's number under its caption.  arXiv's HTML "
               "rendering of version 4 shows the references as 'Figure 3, 3' and 'Figure 6, "
               "6, 6': it renumbers figures that share one float, every reference pointing at "
               "the last figure of its group (the standalone Figure 1 is cited right).  An "
               "earlier release of optmech listed this as an erratum of the paper; it was a "
               "mistake of the rendering, and the erratum is withdrawn (docs/errata.md)."),
    claim(id="sec.lemma3.recurrence", location="Appendix, Lemma 3", kind="lemma",
          statement="r_{k+1,n} = r_{k,n} − (t_n−1)/n · 1/k · C(n−t_n+1, k)/C(n−1, k) for "
                    "k ∈ [n−1].",
          outcome="erratum", identities=("secretary.lemma3_difference_recurrence",),
          note="True for the printed formula, but for the true probabilities only for "
               "2 ≤ k ≤ n − 1; at k = 1 the gap is (t_n−1)(n−t_n)/(n(n−1)).",
          tests=(f"{T_ERR}::test_lemma_3_fails_at_k_1_on_every_arrival_order",),
          evidence=(
              Evidence("exact fractions: the corrected closed form against the printed step, "
                       "3 ≤ n ≤ 80", "secretary.lemma3_difference_recurrence"),
              Evidence("the rule played on all n! arrival orders (library enumeration, "
                       "3 ≤ n ≤ 8)", f"{T_ERR}::test_lemma_3_fails_at_k_1_on_every_arrival_order")),
          text="Version 4 read in arXiv's HTML rendering; version 1 (from the PDF) states the "
               "same recurrence as its Lemma 4 for k ∈ [n − 1], with the same proof."),
    claim(id="sec.lemma4.linear-k", location="Appendix, Lemma 4", kind="lemma",
          statement="For k linear in n, r_{k,n} ~ 1/(en).",
          outcome="holds", identities=("secretary.lemma_4_linear_ranks",)),
    claim(id="sec.lemma5.ratios", location="Appendix, Lemma 5", kind="lemma",
          statement="lim r_{k,n}/r_{k+1,n} ≥ lim r_{k+1,n}/r_{k+2,n} (a_k/a_{k+1} does not "
                    "increase), via β_s ≥ f(s) − f(s+1).",
          outcome="holds", identities=("secretary.lemma_5_theorem_5_3",)),
    claim(id="sec.thm5.3.ratio-bound", location="Appendix, Theorem 5.3", kind="theorem",
          statement="For k ≥ 2, lim r_{k,n}/r_{k+l,n} < 1/a_{l+1}.",
          outcome="holds", identities=("secretary.lemma_5_theorem_5_3",)),
    claim_v1(id="sec-v1.example1", location="version 1, §2.3, Example 1",
             kind="worked example",
             statement="d_1(σ, ρ) = n − 1 for σ = (C_1, ..., C_n), ρ = (C_n, C_2, ..., C_1).",
             outcome="erratum", identities=("secretary.example_1_metric",),
             tests=(f"{T_ERR}::test_version_1_example_1_distance_is_the_inversion_count",),
             note="d_1 counts adjacent swaps, i.e. inversions: 2n − 3 (version 4 corrects it).",
             evidence=(
                 Evidence("breadth-first search over all orderings, n ≤ 6",
                          "secretary.example_1_metric"),
                 Evidence("inversion count of ρ, 3 ≤ n < 60",
                          f"{T_ERR}::test_version_1_example_1_distance_is_the_inversion_count")),
             text="Version 1 read as a conversion of the PDF: it prints d_1(σ, ρ) = n − 1 and a "
                  "product of the n − 1 transpositions (C_1 C_j), which are not swaps of "
                  "neighbours.  Version 4 (HTML rendering) prints 2n − 3 with a product of "
                  "2n − 3 neighbour swaps: the authors' own correction, not a conversion."),
    claim_v1(id="sec-v1.thm1.mix-delta", location="version 1, §3.1, Theorem 1",
             kind="theorem",
             statement="If M^opt is (ε, δ)-DP under d_l and the other rule's rank probabilities "
                       "satisfy q'_k ≤ e^ε q'_m whenever |k − m| ≤ l, their p-mix is (ε, pδ)-DP "
                       "under d_l.",
             outcome="holds",
             tests=(f"{T_CLM}::test_version_1_theorem_1_mix_keeps_epsilon_and_scales_delta",),
             note="Checked for the optimal secretary rule mixed with the blind choice and with "
                  "random rank laws meeting the condition (brute force over events for n ≤ 6); "
                  "without the condition it fails.  Version 4 replaces it by Theorem 4.1 "
                  "(uniform second rule, a smaller ε)."),
    claim_v1(id="sec-v1.thm2.mix-epsilon", location="version 1, §3.1, Theorem 2",
             kind="theorem",
             statement="Under the same condition, if p ≥ 1 − (e^ε − 1)/δ the p-mix is "
                       "(ln(e^ε − (1 − p)δ), δ)-DP under d_l.",
             outcome="holds",
             tests=(f"{T_CLM}::test_version_1_theorem_2_mix_lowers_epsilon_at_the_same_delta",),
             note="Version 1 says its proof is analogous to Theorem 1's; the statement holds "
                  "(exact tight δ of the mix at the new ε is at most δ in every case checked)."),
    claim_v1(id="sec-v1.lemma1.growing-l", location="version 1, §3.2, Lemma 1",
             kind="lemma",
             statement="When l = l(n) → ∞, the p-mix is (ε, δ)-DP under d_l only if ε → ∞.",
             outcome="holds", rows=("secretary:theorem-3-1-success",),
             tests=(f"{T_CLM}::test_version_1_lemma_1_epsilon_grows_when_l_grows",),
             note="The p-mix's tight ε at δ = 0.01, l = n − 1 grows like ln n − 1.37; version 4 "
                  "generalises the lemma to every stopping rule (Theorem 3.1)."),
    claim_v1(id="sec-v1.cor2-remark", location="version 1, §3.2, text after Corollary 2",
             kind="number in text",
             statement="With δ̃ = r_1 − e^ε r_{l+1}, the p-mix with the blind choice is "
                       "(ε, pδ̃ − (1 − p)(e^ε − 1)/n)-DP, tighter than Theorem 1's (ε, pδ̃).",
             outcome="holds",
             tests=(f"{T_CLM}::test_version_1_remark_after_corollary_2",),
             note="The tight δ of the mix equals pδ̃ − (1 − p)(e^ε − 1)/n for n ≥ 7 (when "
                  "positive)."),
    claim_v1(id="sec-v1.eps-0.8", location="version 1, §3.2, Figure 6 text",
             kind="number in text",
             statement="At δ = 0.05, p = 1 suffices from ε ≈ 0.8.",
             outcome="erratum", rows=("secretary:section-4-2-eps-0.85",),
             identities=("secretary.section_4_2_examples",),
             note="The value is 0.8539 (version 4 prints 0.85); at ε = 0.8 only p ≤ 0.7498 is "
                  "private.",
             evidence=(
                 Evidence("closed form 1 + ln(1 − 0.05e) of the asymptotic bound, mpmath at 50 "
                          "digits", "secretary.section_4_2_examples"),
                 Evidence("the exact p-mix at n = 10^6: tight ε of Theorem 3.2 over all "
                          "neighbours (library)", "secretary:section-4-2-eps-0.85")),
             text="Version 1 read as a conversion of the PDF ('ε ≈ 0.8 or higher'); version 4 "
                  "(HTML rendering) has the same sentence with 0.85, the authors' revision."),
    claim_v1(id="sec-v1.cor5.telescoped", location="version 1, Appendix, Corollary 5",
             kind="corollary",
             statement="r_{k,n} = r_{1,n} − (t_n−1)/n Σ_{s=1}^{k−1} (1/s) C(n−t_n+1, s)/"
                       "C(n−1, s).",
             outcome="holds in part",
             tests=(f"{T_CLM}::test_version_1_corollary_5_holds_for_the_printed_formula_only",),
             note="An identity of Theorem 4's printed formula (Lemma 4 telescoped); for the "
                  "true probabilities every r_k with k ≥ 2 is (t_n−1)/(n(n−1)) above the right "
                  "side, the k = 1 erratum of Fact 2 carried over.  Version 4 drops the "
                  "corollary."),
    claim_v1(id="sec-v1.lemma7.ratios", location="version 1, Appendix, Lemma 7",
             kind="lemma",
             statement="For k ∈ [n − 2], lim r_{k,n}/r_{k+1,n} ≥ lim r_{k+1,n}/r_{k+2,n}.",
             outcome="holds",
             identities=("secretary.lemma_5_theorem_5_3", "secretary.lemma_4_linear_ranks"),
             note="Version 4's Lemma 5, same statement and proof: for constant k the limits "
                  "a_k/a_{k+1} do not increase (the proof's β_s ≥ f(s) − f(s+1) for every "
                  "s ≥ 1 symbolically, a_k log-convex for k ≤ 256 at 50 digits); for k linear "
                  "in n both limits are 1 (Lemma 4 of version 4)."),
    claim_v1(id="sec-v1.thm6.ratio-bound", location="version 1, Appendix, Theorem 6",
             kind="theorem",
             statement="For a constant l ≥ 1 and k ∈ {2, ..., n − l}, lim r_{k,n}/r_{k+l,n} < "
                       "1/a_{l+1}.",
             outcome="holds",
             identities=("secretary.lemma_5_theorem_5_3", "secretary.lemma_4_linear_ranks"),
             note="Version 4's Theorem 5.3.  It follows from Lemma 7 and a_1 = −ln(1/e) = 1: "
                  "a_k/a_{k+l} is the product of the l ratios a_j/a_{j+1}, j = k..k+l−1, each "
                  "below its counterpart for j − k + 1 (strictly, a_k being strictly "
                  "log-convex), so it is below a_1/a_{l+1} = 1/a_{l+1}; checked at 50 digits "
                  "for 2 ≤ k < 120, 1 ≤ l < 30, and the exact ratios approach their limits at "
                  "rate 1/n; for k linear in n the limit is 1 < 1/a_{l+1}."),
    claim_v1(id="sec-v1.lemma6.bound", location="version 1, Appendix, Lemma 6",
             kind="lemma",
             statement="lim_{n→∞} r_{k,n} / ((1 − 1/e)^k + 1/(en)) ≤ 1 for k ∈ [n].",
             outcome="holds",
             tests=(f"{T_CLM}::test_version_1_lemma_6_bound_in_the_limit",),
             note="At finite n the ratio exceeds 1 by at most 2/n (n = 10³ ... 10⁶), at ranks "
                  "beyond n − t_n + 1 (the forced-stop floor); for fixed k the limit is "
                  "a_k/(e (1 − 1/e)^k) < 1.  Version 4 drops the lemma."),
)
