"""Claims of the heterogeneous-sensitivities paper (Antonova et al. 2025, arXiv:2501.05309)."""

from __future__ import annotations

from functools import partial

from proofs.claims import Claim, Evidence

claim = partial(Claim, paper="heterogeneous")
T_H = "tests/optmech/heterogeneous"
T_CLM = "tests/proofs/test_heterogeneous_claims.py"
R = "heterogeneous:"
ONE_VERSION = "Read in arXiv's HTML rendering, the only version optmech has; "

NOT_PUBLIC = ("Needs SANSA's predicted scores for the Netflix Prize, MovieLens 20M and Amazon "
              "Books test users (a trained recommendation model and its data splits); neither "
              "the datasets nor the predictions are shipped or specified well enough to rebuild.")

CLAIMS = (
    claim(id="het.sec1.eq5-expectation", location="§I, equation (5) and footnote",
          kind="closed form",
          statement="The expected left side of (5) (max of the low group's noise minus the high "
                    "group's) is H_{k/2}(Δ1 − Δ2).",
          outcome="holds in part", identities=("heterogeneous.introduction_example",),
          note="With Exp noise of mean 2Δ/ε it is (2/ε) H_{k/2}(Δ1 − Δ2); the printed form "
               "drops the factor 2/ε (it is the case ε = 2).  The qualitative statements "
               "(positive, linear in Δ1 − Δ2, logarithmic in k) hold."),
    claim(id="het.sec1.rnmh-below-half", location="§I, after equation (5)",
          kind="proposition",
          statement="With Δ1 > Δ2, RNMH can pick the higher group with probability below 1/2; "
                    "RNM never does; with Δ1 < Δ2 RNMH picks it more often than RNM.",
          outcome="holds", identities=("heterogeneous.introduction_example",)),
    claim(id="het.sec1.gem-or-mgem-near-optimal", location="§I (contributions)",
          kind="experimental outcome",
          statement="In many natural selection problems one of GEM and mGEM is the optimal DP "
                    "selection mechanism or close to it, and typically outperforms RNM.",
          outcome="holds in part", rows=(f"{R}gem-or-mgem-near-best",),
          note="Against the mechanisms studied (the optimal DP mechanism itself is not "
               "computed here): on scenarios 1-8 one of GEM and mGEM is the best or within "
               "10% of the best at most points and beats RNM at most, but not in the "
               "uncorrelated scenario 3 at larger ε, in the polarised scenario 7 (combined GEM "
               "or RNM best), nor at the largest ε of scenarios 4, 6 and 8; the row lists the "
               "points."),
    claim(id="het.sec3b.rnm-private", location="§III-B", kind="proposition",
          statement="RNM with exponential noise of mean 2Δ/ε is ε-DP.",
          outcome="holds",
          tests=(f"{T_H}/test_mechanisms.py::test_global_noisy_max_is_pf_at_max_sensitivity",
                 "tests/optmech/selection/test_noisy_max.py::test_exponential_noise_is_permute_and_flip",
                 "tests/optmech/selection/test_privacy.py::test_pf_and_em_never_exceed_epsilon")),
    claim(id="het.sec3b.exponential-dominates", location="§III-B", kind="proposition",
          statement="RNM's expected utility with exponential noise dominates that with Laplace "
                    "or Gumbel noise.",
          outcome="holds", rows=(f"{R}rnm-exponential-dominates",),
          identities=("permute_flip.theorem_2_dominance",),
          note="Against Gumbel (= EM) this is Theorem 2 of the permute-and-flip paper; against "
               "Laplace it is checked on random score vectors (no counter-example)."),
    claim(id="het.sec3b.krr", location="§III-B (k-randomised response)", kind="closed form",
          statement="kRR outputs the best candidate with probability e^ε/(e^ε + k − 1), any "
                    "other with 1/(e^ε + k − 1).",
          outcome="holds",
          tests=("tests/optmech/selection/test_mechanisms.py::test_randomized_response_by_hand",)),
    claim(id="het.sec4a.rnmh-exponential", location="§IV-A", kind="worked example",
          statement="RNMH with exponential noise picks candidate 1 with probability 0 under D and "
                    "1 − e^{-ε/4} under D', so it is not ε'-DP for any ε'.",
          outcome="holds", rows=(f"{R}rnmh-exp-dprime", f"{R}rnmh-exp-d", f"{R}rnmh-exp-loss"),
          identities=("heterogeneous.rnmh_counterexample",),
          tests=(f"{T_H}/test_mechanisms.py::test_rnmh_counterexample",
                 "tests/optmech/selection/test_privacy.py::test_rnmh_with_exponential_noise_is_not_private")),
    claim(id="het.sec4a.laplace-k-eps", location="§IV-A", kind="proposition",
          statement="RNMH with Laplace noise (scale Δ_a/ε) is kε-DP.",
          outcome="holds", identities=("heterogeneous.rnmh_laplace_privacy_bound",),
          note="The verified bound is mε with m the number of candidates of positive "
               "sensitivity (m ≤ k)."),
    claim(id="het.sec4a.laplace-k-minus-1", location="§IV-A and Appendix A", kind="proposition",
          statement="RNMH with Laplace noise is (k − 1)ε-DP, and this is tight.",
          outcome="erratum", rows=(f"{R}rnmh-laplace-k-minus-1",),
          identities=("heterogeneous.rnmh_laplace_privacy_bound",),
          tests=(f"{T_H}/test_mechanisms.py::test_rnmh_laplace_exceeds_k_minus_one_with_positive_sensitivities",),
          note="With k = 2 and Δ = (1, 1) the loss tends to 2ε; the correct bound is mε "
               "(m = #{a : Δ_a > 0}).",
          evidence=(
              Evidence("SymPy: the Laplace-difference tail in closed form and the loss's limit "
                       "2ε as the gap grows", "heterogeneous.rnmh_laplace_privacy_bound"),
              Evidence("the library's numerical RNMH pmf (quadrature): loss 1.912989ε at "
                       "gap 20 (scores (0, 20) against (−1, 21)), rising with the gap",
                       f"{T_H}/test_mechanisms.py::test_rnmh_laplace_exceeds_k_minus_one_with_positive_sensitivities")),
          text=ONE_VERSION + "'we can show that it is (k−1)ε' is prose; the Appendix A example "
               "(all displays legible) has one candidate of sensitivity 0, so it attains "
               "(k−1)ε without contradicting the mε bound."),
    claim(id="het.appA.laplace-example", location="Appendix A, equations (8)-(15)",
          kind="worked example",
          statement="Candidate 1 with Δ = 0 against k − 1 of Δ = 1: Pr[M(D1) = 1]/Pr[M(D2) = 1] = "
                    "e^{(k−1)ε}.",
          outcome="holds", rows=(f"{R}rnmh-laplace-appendix-a",),
          identities=("heterogeneous.rnmh_laplace_counterexample",),
          tests=(f"{T_H}/test_mechanisms.py::test_rnmh_laplace_appendix_a_attains_k_minus_one",)),
    claim(id="het.sec4b.rs-private", location="§IV-B, Algorithm 1", kind="proposition",
          statement="RS_γ (Laplace noise of scale 3Δ_a/ε, geometric stopping) is ε-DP for every γ.",
          outcome="holds", rows=(f"{R}privacy-rs-gamma",),
          tests=(f"{T_CLM}::test_random_stopping_is_private_on_many_inputs",
                 f"{T_CLM}::test_random_stopping_check_has_power"),
          note="A property over many inputs: exact realised loss within ε for random k ≤ 5, "
               "scores, sensitivities, γ ∈ [0.02, 0.9] and ε ∈ [0.1, 3], against every "
               "neighbour moving each score by −Δ_a, 0 or +Δ_a (both the geometric law and "
               "η = 0); the same check catches RS_γ built with a sixth of the noise."),
    claim(id="het.sec4b.tnb", location="§IV-B and Appendix C", kind="proposition",
          statement="With the truncated negative binomial D_{η,γ} random stopping is (2 + η)ε-DP; "
                    "η = 1 recovers Liu and Talwar's 3ε (the geometric law).",
          outcome="holds", rows=(f"{R}privacy-rs-gamma-tnb",),
          identities=("heterogeneous.truncated_negative_binomial",),
          tests=(f"{T_H}/test_random_stopping.py::test_tnb_with_eta_one_is_rs_gamma",),
          note="The privacy theorem is Papernot and Steinke's; checked here: the law, its "
               "reduction to the geometric one at η = 1, and the realised loss of the η = 0 "
               "mechanism."),
    claim(id="het.appC.tnb-moments", location="Appendix C, Definition .1", kind="closed form",
          statement="Pr[K = k] of D_{η,γ} and E[K] = η(1−γ)/(γ(1 − γ^η)) (η ≠ 0), "
                    "(1/γ − 1)/log(1/γ) (η = 0).",
          outcome="holds", rows=(f"{R}tnb-mean-eta-0", f"{R}tnb-mean-eta-0.5"),
          identities=("heterogeneous.truncated_negative_binomial",),
          tests=(f"{T_H}/test_random_stopping.py::test_stopping_law_closed_forms",)),
    claim(id="het.sec4c.gem-sensitivity", location="§IV-C, equations (6)-(7)",
          kind="proposition",
          statement="GEM's normalised score q' has sensitivity at most 1 (and maximum 0).",
          outcome="holds", rows=(f"{R}gem-sensitivity",),
          identities=("heterogeneous.gem_normalised_scores",),
          tests=(f"{T_H}/test_gem_transform.py::test_sensitivity_at_most_one",)),
    claim(id="het.sec4d.utility-bounds", location="§IV-D", kind="closed form",
          statement="From q'_chosen ≥ −L: q_chosen ≥ q_j − Δ_chosen(L − t) − Δ_j(L + t); t = L "
                    "gives GEM's bound, t = −L mGEM's.",
          outcome="holds", identities=("heterogeneous.gem_mgem_utility_bounds",)),
    claim(id="het.sec5a.rnm-rnmh-lower", location="§V-A", kind="closed form",
          statement="Two candidates: RNM picks the lower with probability ½e^{−ε(q2−q1)/(2Δ)}, "
                    "RNMH with e^{−ε(q2−q1)/(2Δ1)}/(1 + Δ2/Δ1).",
          outcome="holds", rows=(f"{R}two-candidates-rnmh-12", f"{R}two-candidates-rnmh-21",
                                 f"{R}two-candidates-rnm"),
          tests=(f"{T_H}/test_mechanisms.py::test_rnmh_two_candidate_formula_section_5a",)),
    claim(id="het.sec5a.hg-sign", location="§V-A", kind="proposition",
          statement="HG(RNM, RNMH) > 0 for Δ1 < Δ2 and < 0 for Δ1 > Δ2.",
          outcome="holds", identities=("heterogeneous.two_candidates_hg",)),
    claim(id="het.sec5a.gem-two-candidates", location="§V-A", kind="proposition",
          statement="Two candidates: GEM favours the better one when Δ1 > Δ2, and can favour the "
                    "worse one (worse than random) when Δ1 < Δ2; mGEM the opposite.",
          outcome="holds", identities=("heterogeneous.two_candidates_hg",),
          tests=(f"{T_H}/test_mechanisms.py::test_gem_two_candidates_favours_the_wrong_one_section_5a",)),
    claim(id="het.fig3.hg-rs", location="§V-A, Figure 3", kind="figure",
          statement="HG(RNM, RS_γ) (γ = 0.01, ε = 0.1, q = (0, 1)) follows the pattern of RNMH: "
                    "positive exactly when Δ1 < Δ2.",
          outcome="holds", rows=(f"{R}figure-3-hg-rs",)),
    claim(id="het.fig4.schematic", location="§V-B, Figure 4", kind="figure",
          statement="Schematic of q_a ± tΔ_a under positive and negative correlation.",
          outcome="not checkable here",
          note="An illustration without data or parameters."),
    claim(id="het.fig6.scenarios", location="§V-B, Figure 6", kind="figure",
          statement="Two positively correlated scenarios (Pearson 0.22 / Spearman 0.12 and 0.44 / "
                    "0.27) where GEM does well (scenario 1) and mGEM loses to RNM at larger ε "
                    "(scenario 2).",
          outcome="not checkable here",
          note="The candidates are given only as scatter plots (e.g. '18 candidates overlaid "
               "with score 1 and sensitivity 0.1'); their scores and sensitivities are not "
               "listed."),
    claim(id="het.fig2a.scenario-1", location="§VI, Figure 2(a)", kind="experimental outcome",
          statement="Scenario 1 (positive correlation): mGEM best, then RNM, then GEM.",
          outcome="holds", rows=(f"{R}scenario-1-order",),
          tests=(f"{T_H}/test_scenarios.py::test_scenario_one_exact_values",)),
    claim(id="het.fig2a.rs-gamma", location="§I and §VI, Figure 2(a)",
          kind="experimental outcome",
          statement="In scenario 1 RS_γ also beats RNM (it is among the best).",
          outcome="holds in part", rows=(f"{R}scenario-1-rs-gamma",),
          note="Only for ε ≤ 3.16: all K draws come from the low half with probability "
               "E[2^{−K}] = 0.0476, which floors RS_γ's MSE at 0.19."),
    claim(id="het.fig2b.scenario-2", location="§VI, Figure 2(b)", kind="experimental outcome",
          statement="Scenario 2 (negative): GEM best, then RNM, then mGEM and RS_γ.",
          outcome="holds", rows=(f"{R}scenario-2-order",)),
    claim(id="het.fig2c.scenario-3", location="§VI, Figure 2(c)", kind="experimental outcome",
          statement="Scenario 3 (none): GEM, mGEM, RS_γ slightly worse than RNM; GEM best of the "
                    "three.",
          outcome="holds", rows=(f"{R}scenario-3-order",)),
    claim(id="het.fig2.worse-than-random", location="§VI, Figure 2(a)-(b)",
          kind="experimental outcome",
          statement="For small ε the wrong heterogeneous mechanism is worse than uniform "
                    "selection.",
          outcome="holds", rows=(f"{R}worse-than-uniform",)),
    claim(id="het.sec6.small-eps-deviation", location="§VI, Figure 2(a)-(b)",
          kind="experimental outcome",
          statement="In scenarios 1 and 2 the mechanisms deviate most for small ε.",
          outcome="holds", rows=(f"{R}scenarios-1-2-spread",),
          note="In absolute MSE: the range over RNM, GEM, mGEM and RS_γ is 3.19 at ε = 0.1 "
               "and 0.77 at ε = 10; as a ratio of MSEs it grows with ε instead (9 to 63), "
               "as the best mechanisms' MSE tends to 0."),
    claim(id="het.fig8a.scenario-4", location="§VI, Figure 8(a)", kind="experimental outcome",
          statement="Scenario 4 (positive): mGEM and RS_γ beat RNM, GEM is worse than RNM (and "
                    "than uniform for small ε).",
          outcome="holds", rows=(f"{R}scenario-4-order", f"{R}scenario-4-gem-uniform")),
    claim(id="het.fig8.mgem-vs-rs", location="§I and §V-A", kind="experimental outcome",
          statement="Under positive correlation mGEM typically outperforms RS_γ.",
          outcome="holds", rows=(f"{R}mgem-beats-rs-gamma",)),
    claim(id="het.fig8b.scenario-5", location="§VI, Figure 8(b)", kind="experimental outcome",
          statement="Scenario 5 (negative): GEM best; mGEM and RS_γ worse than RNM.",
          outcome="holds", rows=(f"{R}scenario-5-order",)),
    claim(id="het.fig8c.scenario-6", location="§VI, Figure 8(c)", kind="experimental outcome",
          statement="Scenario 6 (no correlation): GEM performs well.",
          outcome="holds", rows=(f"{R}scenario-6-gem",)),
    claim(id="het.fig8c.mgem-rs-none", location="§VI, Figure 8 text",
          kind="experimental outcome",
          statement="Without correlation (scenario 6), mGEM and RS_γ do not perform well: "
                    "'vice versa' of GEM, they do not beat RNM.",
          outcome="holds", rows=(f"{R}scenario-6-mgem-rs-gamma",),
          note="On every uncorrelated draw of the scenario's random parameters (4 of 5 "
               "seeds, |Spearman| ≤ 0.07) mGEM and RS_γ are at or above RNM at ε = 0.1, 1 "
               "and 10; the seed-0 draw has Spearman +0.27 and they win at small ε there, as "
               "the correlation heuristic predicts."),
    claim(id="het.fig10.correlation", location="§VI, Figure 10", kind="figure",
          statement="The sweep's Spearman correlation goes from negative to positive as t goes "
                    "from −5 to 5.",
          outcome="holds", rows=(f"{R}sweep-seeds-correlation",),
          tests=(f"{T_H}/test_scenarios.py::test_sweep_correlation_follows_t",)),
    claim(id="het.fig10.best-mechanism", location="§VI, Figure 10", kind="experimental outcome",
          statement="mGEM and RS_γ benefit most from strong positive correlation, GEM from "
                    "negative.",
          outcome="holds", rows=(f"{R}sweep-seeds-best-mechanism", f"{R}sweep-best-mechanism"),
          note="Over 10 seeds of the sweep's random parameters: under strong correlation "
               "(|t| ≥ 0.8) on every seed; at t = ±0.3 on 8 and 7 of 10."),
    claim(id="het.fig10.gain-grows", location="§VI, Figure 10", kind="experimental outcome",
          statement="The benefit of the best heterogeneous mechanism over RNM increases with the "
                    "strength of the correlation.",
          outcome="holds in part", rows=(f"{R}sweep-seeds-gain-grows", f"{R}sweep-gain-grows"),
          note="Over 10 seeds (95% intervals on the log gain): it grows from t = −0.3 to −0.8, "
               "is within noise from −0.8 to −5 and from 0.3 to 0.8, and falls from 0.8 to 5 "
               "(geometric-mean gains 1.43 at t = 0.8, 1.24 at t = 5); the printed generator "
               "widens the spreads with |t|."),
    claim(id="het.sec7.combined-gem-private", location="§VII, Algorithm 2", kind="proposition",
          statement="Combined GEM (randomised response on the sign of the Spearman correlation "
                    "with ε_c, then GEM or mGEM with ε − ε_c) is ε-DP.",
          outcome="holds", rows=(f"{R}privacy-combined-gem",),
          tests=(f"{T_H}/test_mechanisms.py::test_combined_gem_is_the_randomised_response_mixture",)),
    claim(id="het.fig12a.scenario-7", location="§VII, Figure 12(a)", kind="experimental outcome",
          statement="Scenario 7 (polarised users): combined GEM with ε_c = 0.6ε beats GEM, mGEM "
                    "and RNM.",
          outcome="holds", rows=(f"{R}scenario-7-combined",),
          tests=(f"{T_H}/test_scenarios.py::test_polarised_groups_have_opposite_correlation_and_alternate",)),
    claim(id="het.fig12b.scenario-8", location="§VII, Figure 12(b)", kind="experimental outcome",
          statement="Scenario 8 (weaker polarisation): spending budget on the choice gains less.",
          outcome="holds", rows=(f"{R}scenario-8-smaller-gain",)),
    claim(id="het.sec8.correlations", location="§VIII, Figure 13(a)-(c)",
          kind="experimental outcome",
          statement="On three recommendation datasets most users' scores and sensitivities are "
                    "positively correlated (Netflix most).",
          outcome="not checkable here", note=NOT_PUBLIC),
    claim(id="het.sec8.gap-vs-correlation", location="§VIII, Figure 13(d)-(f)",
          kind="experimental outcome",
          statement="Per user, mGEM's advantage over GEM grows with the correlation.",
          outcome="not checkable here", note=NOT_PUBLIC),
    claim(id="het.sec8.mgem-best", location="§VIII, Figure 13(g)-(i)",
          kind="experimental outcome",
          statement="mGEM is the best DP mechanism on all three datasets for small ε; GEM is "
                    "worse than RNM on all three.",
          outcome="not checkable here", note=NOT_PUBLIC),
    claim(id="het.sec8.recall", location="§VIII, footnote 8", kind="number in text",
          statement="The SANSA model's recall on MovieLens is about 0.36 (0.38 reported by "
                    "Spišák et al.).",
          outcome="not checkable here", note=NOT_PUBLIC),
    claim(id="het.fig21.amazon", location="Appendix G, Figure 21", kind="figure",
          statement="On Amazon Books, spending budget to choose the mechanism does not pay.",
          outcome="not checkable here", note=NOT_PUBLIC),
    claim(id="het.sec9.bandit", location="§IX, Figure 14; Appendix H",
          kind="experimental outcome",
          statement="In a two-armed bandit with a distribution shift, every private selection "
                    "rule beats non-private UCB after the shift, and mGEM beats all others.",
          outcome="not checkable here",
          note="The set-up is not specified well enough to rebuild: the clipping range of the "
               "rewards, the output range and grid of the exponential-mechanism quantile "
               "estimates, the parameters of the hybrid counting mechanism, how the private "
               "means enter each selection rule (with or without UCB's bonus), the initial "
               "pulls and the number of runs are not given, and the shift time is stated as "
               "t = 30,000 (caption) and t = 500 (text)."),
    claim(id="het.sec10.rnm-safer", location="§X (Conclusion); abstract and §I",
          kind="experimental outcome",
          statement="No mechanism that uses the heterogeneous sensitivities uniformly "
                    "outperforms RNM; each can perform poorly, so when the correlation is weak "
                    "or unknown RNM remains a safer option.",
          outcome="holds", rows=(f"{R}rnm-safer-option", f"{R}worse-than-uniform"),
          tests=(f"{T_CLM}::test_rnm_is_never_worse_than_the_uniform_choice_and_each_mechanism"
                 "_loses_to_it",),
          note="Each of GEM, mGEM, combined GEM and both RS_γ is worse than RNM somewhere in "
               "scenarios 1-8 (in the exact scenarios 1-3 already), and some are worse than the "
               "uniform choice, while RNM never is: with i.i.d. noise a higher score is never "
               "less likely to be selected (monotonicity), so Pr[one of the top j] ≥ j/n and "
               "RNM's selected score stochastically dominates the uniform choice's; checked "
               "on random scores and sensitivities.  'Safer' is read as these two facts on the "
               "mechanisms and scenarios studied."),
    claim(id="het.appB.rs-exponential", location="Appendix B", kind="worked example",
          statement="Random stopping with exponential noise is not DP: in the example the ratio "
                    "Pr[M(D2) = 1]/Pr[M(D1) = 1] tends to infinity as k grows.",
          outcome="erratum", rows=(f"{R}appendix-b-monte-carlo",),
          identities=("heterogeneous.appendix_b_rs_exponential",),
          note="The derivation counts runs that never draw candidate 1 (and uses the wrong "
               "normalisation of the geometric law); the true ratio tends to "
               "1/(1 − (1−γ)(1 − e^{−ε/6}))² and stays below e^{ε/3} < e^ε, so the example "
               "shows no privacy violation (1.3464 at k = 10, γ = 0.05, ε = 1, confirmed by "
               "simulation; printed 2.79).",
          evidence=(
              Evidence("exact sums over the stopping time and the draws (SymPy, mpmath), the "
                       "corrected ratio's limit and bound",
                       "heterogeneous.appendix_b_rs_exponential"),
              Evidence("Monte Carlo: 2·10⁶ runs of the mechanism per dataset, 99% interval",
                       f"{R}appendix-b-monte-carlo")),
          text=ONE_VERSION + "the displays are legible in the rendering (the binomial sum "
               "runs from s = 0, the geometric weight is (1−γ)^t), and the slip is in that "
               "derivation, not in its transcription."),
    claim(id="het.fig15.gamma", location="Appendix D, Figure 15 and text", kind="figure",
          statement="The difference between RS_γ and RNM grows as γ decreases (small for γ = 0.5, "
                    "where E[K] = 2).",
          outcome="holds", rows=(f"{R}figure-15-gamma",),
          note="The caption's direction holds; the text says 'as γ increases', a slip."),
    claim(id="het.fig16.hg-rnmh", location="Appendix D, Figure 16", kind="figure",
          statement="HG(RNM, RNMH) over (Δ1, Δ2) for gaps 0.1-5 and ε ∈ {0.1, 1, 3}: RNM wins "
                    "exactly where Δ1 > Δ2.",
          outcome="holds", rows=(f"{R}figure-16-hg-rnmh",)),
    claim(id="het.fig17.hg-rs", location="Appendix D, Figure 17", kind="figure",
          statement="HG(RNM, RS_γ) (γ = 0.01) over the same panels follows RNMH's pattern.",
          outcome="holds in part", rows=(f"{R}figure-17-hg-rs",),
          note="833 of 864 grid cells; at larger ε × gap (e.g. ε = 3, gap 5: 57 of 72) RS_γ "
               "departs from the pattern."),
    claim(id="het.fig18a.positive", location="Appendix E, Figure 18(a)",
          kind="experimental outcome",
          statement="ε = 2, positive correlation: RNMH, mGEM and RS_γ beat RNM and GEM at most "
                    "shares of high scores; the gap is largest with few high scores and "
                    "smallest at the extremes.",
          outcome="holds", rows=(f"{R}figure-18-positive",)),
    claim(id="het.fig18b.negative", location="Appendix E, Figure 18(b)",
          kind="experimental outcome",
          statement="ε = 2, negative correlation: only GEM gains; the other heterogeneous "
                    "mechanisms are worse than random at every non-trivial share.",
          outcome="holds in part", rows=(f"{R}figure-18-negative",),
          note="RS_γ is slightly better than random selection when at most 30% of the scores "
               "are high (e.g. 3.955 against 3.960 at 1%)."),
    claim(id="het.fig18c.none", location="Appendix E, Figure 18(c)",
          kind="experimental outcome",
          statement="ε = 2, no correlation: heterogeneity does not help; RNM suffices at every "
                    "share.",
          outcome="holds in part", rows=(f"{R}figure-18-none",),
          note="RNM is best from 5% to 95% high scores; at 99% mGEM (0.0040) and RS_γ (0.0086) "
               "beat RNM (0.0132), and at 1% mGEM does."),
    claim(id="het.appF.polarised-data", location="Appendix F", kind="proposition",
          statement="The polarised data set has one group with strong positive and one with "
                    "strong negative correlation.",
          outcome="holds",
          tests=(f"{T_CLM}::test_polarised_data_has_one_positive_and_one_negative_group",),
          note="Built from the appendix's recipe alone (base scores −8 + 8a/100 and "
               "8 − 8a/100, noise sd 0.5, sensitivities from the 10th-90th percentiles over "
               "all users): per-user Spearman correlation median below −0.9 in one group and "
               "above 0.9 in the other; with sd 3 both are weaker."),
    claim(id="het.appI.eq16", location="Appendix I, equation (16)", kind="closed form",
          statement="The maximum of independent Laplace(b_a) noises has cdf ∏(1 − e^{−x/b_a}/2) "
                    "for x > 0, and Pr[M ≤ 0] = 2^{−A}.",
          outcome="holds", identities=("heterogeneous.appendices_i_j",)),
    claim(id="het.appI.fig22", location="Appendix I, Figure 22", kind="figure",
          statement="Even one large scale parameter among small ones significantly skews the "
                    "distribution of the maximum of independent Laplace noises.",
          outcome="holds",
          tests=(f"{T_CLM}::test_one_large_scale_skews_the_maximum_of_laplace_noises",),
          note="The figure's number of variables is not given; for 10, 100 and 1000 "
               "variables of scale 0.5, one of scale 10 lifts the maximum's 90th percentile "
               "3.8 to 8.3 times and its median 1.14 to 1.71 times."),
    claim(id="het.appI.weighted-correlation", location="Appendix I, equation (17), Figure 24",
          kind="number in text",
          statement="The weighted correlation of Figure 6's scenarios is 0.83 and 0.16 and "
                    "predicts mGEM against RNM better than Pearson or Spearman.",
          outcome="not checkable here",
          note="Needs the candidates of Figure 6, which are shown only as scatter plots."),
    claim(id="het.appJ.conditions", location="Appendix J, equations (18)-(19)",
          kind="closed form",
          statement="GEM's utility bound is worse than RNM's iff Δ_* > max Δ_i / 2, and worse "
                    "than uniform selection's iff Δ_* > (q_* − q_−)/(4 log(|A|/β)/ε).",
          outcome="holds", identities=("heterogeneous.appendices_i_j",)),
)
