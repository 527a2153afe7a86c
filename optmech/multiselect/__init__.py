"""Multi-selection under local geographic differential privacy.

A. Goel, Z. Jiang, A. Korolova, K. Munagala and S. Sarmasarkar, *Differential Privacy
Under Multiple Selections*, FORC 2025, arXiv:2407.14641: Sections 1-2 (the protocol,
Theorems 5 and 19), Appendix A (the ring, A.2; other noise families, A.3) and Appendix B
(the 1/b recurrence for odd k).

* :mod:`~.offsets`: the optimal server offsets against Laplace noise for any k (closed
  forms, the 1/b recurrence, equation (14));
* :mod:`~.noise`: noise families, exact expected costs, the Appendix A.3 quantile offsets;
* :mod:`~.protocol`: the protocol end to end (exact cost, sampling, Monte Carlo);
* :mod:`~.ring`: the ring of Appendix A.2 with truncated Laplace noise;
* :mod:`~.dilp`: the discretised differential-integral LP (:mod:`lp_models.dilp`) and its
  dual, solved and compared with Laplace.
"""

from optmech._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "optmech.multiselect.dilp": ("DilpResult", "solve_dilp"),
    "optmech.multiselect.noise": (
        "NOISE_FAMILIES", "SymmetricNoise", "expected_cost", "quantile_cost_bound",
        "quantile_offsets",
    ),
    "optmech.multiselect.offsets": (
        "DISUTILITIES", "Disutility", "ServerResponse", "closed_form_cost", "closed_form_offsets",
        "optimal_response",
    ),
    "optmech.multiselect.protocol": ("MonteCarloEstimate", "MultiSelection", "ProtocolDraws"),
    "optmech.multiselect.ring": ("TruncatedLaplace", "ring_expected_cost", "ring_laplace_response"),
})
