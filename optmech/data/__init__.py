"""Real-data selection tasks: mode and median on the DPBench histograms.

Permute-and-flip paper — R. McKenna and D. Sheldon, *Permute-and-Flip: A new mechanism for
differentially private selection*, NeurIPS 2020, arXiv:2010.12603 — Section 6 and
Appendix G (Figures 3 and 7).  The histograms are the one-dimensional DPBench datasets
(M. Hay, A. Machanavajjhala, G. Miklau, Y. Chen and D. Zhang, *Principled Evaluation of
Differentially Private Algorithms using DPBench*, SIGMOD 2016), shipped in ``dpbench/``.

* :mod:`~.datasets`: the shipped histograms and any ``.npy`` / ``.csv`` histogram;
* :mod:`~.csv_counts`: the CSV shapes a histogram file may have;
* :mod:`~.tasks`: mode and median scores and the exact expected error of each mechanism; the
  histograms as settings for the noise comparison (:mod:`optmech.privacy.noise_choice`).
"""

from optmech._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "optmech.data.datasets": (
        "DATASETS", "PAPER_BINS", "PAPER_DATASETS", "check_histogram", "coarsen", "load_histogram",
    ),
    "optmech.data.csv_counts": ("read_csv_counts",),
    "optmech.data.tasks": (
        "TASKS", "Task", "budget_ratio", "epsilon_for_error", "error_curves", "error_ratio",
        "expected_errors", "get_task", "histogram_settings", "median_scores", "mode_scores",
    ),
})
