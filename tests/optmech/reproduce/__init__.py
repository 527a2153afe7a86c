"""Tests of ``optmech.reproduce``.

:data:`SLOW_AREAS`: the areas whose quick reproduction takes 10 CPU s or more (measured:
secretary 39, heterogeneous 29, lattice 27, multiselect 13, privacy 10.5); the tests that
run one are marked ``slow`` (``.ci/run``'s slow step runs them, and README's main command
runs every area's quick reproduction in CI as well).  The other areas' quick runs (selection,
data, top-k, beyond: 2 to 8 CPU s) stay in the default run.
"""

SLOW_AREAS = {"secretary", "heterogeneous", "lattice", "multiselect", "privacy"}
