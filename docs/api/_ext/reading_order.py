"""Sphinx extension: the members of a module page in reading order.

autodoc lists a module's members in the order of its ``__all__`` (alphabetical in this
project), so ``solve_lattice`` came after every constant and helper of its module.  Here a
module's main entry points come first, in the order of :data:`FIRST`; the other members
follow in autodoc's order.

autodoc has no public hook for the order: on Sphinx 9 the member sorter of its new
implementation is wrapped, on Sphinx 7 and 8 the module documenter is subclassed (the docs
extra pins Sphinx below 10; if the sorter moves, the build fails with an ImportError here
rather than silently losing the order).
"""

from __future__ import annotations

#: module -> the members a reader wants first, in that order.
FIRST = {
    "optmech.selection.mechanisms": [
        "PermuteAndFlip", "ExponentialMechanism", "ReportNoisyMax", "RandomizedResponse",
        "UniformSelection", "PmfMechanism", "make_mechanism", "as_mechanism",
        "SelectionMechanism", "PrivacyGuarantee"],
    "optmech.selection.privacy": ["realised_epsilon", "PrivacyCheck", "privacy_loss"],
    "optmech.lattice.optimum": ["solve_lattice", "LatticeOptimum", "realised_privacy_loss"],
    "optmech.lattice.ratios": ["optimality_ratio", "optimality_ratios", "ratio_sweep",
                               "RatioCurve", "total_error", "class_errors"],
    "optmech.lattice.bound": ["bound_lattice", "LatticeBracket", "bracket_ratios",
                              "bound_sweep", "RatioBands"],
    "lp_models.program": ["LinearProgram", "solve", "Solution", "to_cvxpy", "read_lp",
                          "write_lp", "SolverError"],
    "optmech.multiselect.protocol": ["MultiSelection"],
    "optmech.secretary.privacy": ["pmix_epsilon", "pmix_delta", "pmix_largest_p",
                                  "PmixBound"],
    "optmech.secretary.optimal": ["optimal_private_rule", "PrivateStoppingRule",
                                  "compare_with_pmix", "PmixComparison", "best_pmix"],
    "proofs.registry": ["Registry", "identity", "check_all", "check_one", "verified_if",
                        "erratum_if", "Identity", "CheckResult", "Outcome"],
}


def reading_order(module: str, entries: list, name_of) -> list:
    """``entries`` (autodoc's members of ``module``, sorted) with those of :data:`FIRST`
    moved to the top in its order; ``name_of(entry)`` is a member's name."""
    first = {name: rank for rank, name in enumerate(FIRST.get(module, ()))}
    return sorted(entries, key=lambda entry: first.get(name_of(entry), len(first)))


def _wrap_sorter():
    """Sphinx 9: wrap the member sorter of the function-based autodoc."""
    from sphinx.ext.autodoc._dynamic import _member_finder

    original = _member_finder._sort_members

    def sort_members(documenters, order, *, props, **options):
        documenters = original(documenters, order, props=props, **options)
        if props.obj_type != "module":
            return documenters
        return reading_order(props.module_name, documenters, lambda e: e[0].parts[-1])

    _member_finder._sort_members = sort_members


def _documenter():
    """Sphinx 7 and 8: a module documenter that sorts its members in reading order."""
    from sphinx.ext.autodoc import ModuleDocumenter

    class ReadingOrderModuleDocumenter(ModuleDocumenter):
        def sort_members(self, documenters, order):
            return reading_order(self.modname, super().sort_members(documenters, order),
                                 lambda e: e[0].name.split("::")[-1])

    return ReadingOrderModuleDocumenter


def setup(app):
    import sphinx

    if sphinx.version_info >= (9,):
        _wrap_sorter()
    else:
        app.add_autodocumenter(_documenter(), override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
