"""
Build, change and solve an optimal-mechanism LP
===============================================

The optimal *regular* mechanism on the bounded 2Δ-lattice (McKenna & Sheldon 2020,
*Permute-and-Flip: A new mechanism for differentially private selection*, arXiv:2010.12603,
Appendix D) is a linear program.  :func:`optmech.lattice.solve_lattice` certifies its
optimum; the LP itself is a plain :class:`lp_models.program.LinearProgram` that you can
inspect, change and hand to HiGHS (:func:`lp_models.program.solve`) or any other solver.

Here: the paper's objective (the total expected error over the lattice), then the minimax
objective (the largest expected error over the lattice), built from the same rows.
"""

# %%
# The certified optimum and the LP behind it
# ------------------------------------------
# Every block of rows and every column has a label; the objective converts to the paper's
# units (total expected error, in units of Δ).
from lp_models.lattice import reduced_lattice_lp
from lp_models.lattice.objectives import class_error_matrix, with_max_objective
from lp_models.program import solve
from optmech.lattice import solve_lattice
from optmech.lattice.aggregate_ratios import mechanism_class_errors

n, k, eps = 3, 3, 0.5
opt = solve_lattice(n, k, eps)
print(opt.lp.row_layout())
print(opt.lp.column_label(5))
print(f"total expected error {opt.total_error:.6f}, certified gap {opt.gap:.1e}")

# %%
# Change the objective and solve it with HiGHS
# --------------------------------------------
# The builder writes every row; :func:`~lp_models.lattice.objectives.with_max_objective`
# adds an epigraph column above every class's expected error.  Its HiGHS optimum agrees
# with ``solve_lattice(..., objective="max")``, which certifies it on its own.
full = reduced_lattice_lp(n, k, eps)
minimax_lp = with_max_objective(full, class_error_matrix(full.metadata["classes"]), 10.0)
solution = solve(minimax_lp)
minimax = solve_lattice(n, k, eps, objective="max")
print(solution.status, f"{solution.objective:.9f}", f"{minimax.objective_value:.9f}")

# %%
# What each objective buys
# ------------------------
# The expected error on every class of score vectors (one class per count of items at
# each level): the sum-optimal mechanism, the minimax-optimal one and permute-and-flip.
import matplotlib.pyplot as plt
import numpy as np

curves = {"optimal (sum)": opt.class_errors(), "optimal (max)": minimax.class_errors(),
          "permute-and-flip": mechanism_class_errors("pf", opt)}
order = np.argsort(curves["permute-and-flip"])
fig, ax = plt.subplots(figsize=(7, 3.6), layout="constrained")
for (label, errors), marker in zip(curves.items(), "osx"):
    ax.plot(errors[order], marker=marker, linewidth=1, label=label)
ax.set_xlabel("class of score vectors (sorted by PF's error)")
ax.set_ylabel("expected error (units of Δ)")
ax.set_title(f"n = {n}, k = {k}, ε = {eps}")
ax.legend()
plt.show()
