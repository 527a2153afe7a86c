"""Sweeps: the same results serially, on a process pool, on Dask, and from the cache."""

import math

import pytest

from optmech.sweep import cell_key, run_sweep
from optmech.validation import InvalidArgumentError

CALLS_FILE = "calls.txt"


def pf_error_cell(n, eps, log_to=None):
    """A real cell: PF's worst-case error (equation 8 maximised over p)."""
    from optmech.selection.worst_case import worst_case_error

    if log_to is not None:
        with open(log_to, "a") as f:
            f.write(f"{n},{eps}\n")
    best = worst_case_error("pf", n, eps)
    return {"n": n, "eps": eps, "error": best.error, "p": best.p}


CELLS = [{"n": n, "eps": eps} for n in (2, 5, 40) for eps in (0.5, 2.0)]


def test_process_pool_matches_serial():
    serial = run_sweep(pf_error_cell, CELLS)
    pooled = run_sweep(pf_error_cell, CELLS, workers=2)
    assert pooled == serial
    assert [r["n"] for r in serial] == [c["n"] for c in CELLS]
    # independent check of one cell: n = 2 error = max_p (2/eps) log(1/p) p/2
    grid = [math.exp(-t / 1000) for t in range(1, 20000)]
    brute = max((2 / 0.5) * math.log(1 / p) * p / 2 for p in grid)
    assert serial[0]["error"] == pytest.approx(brute, rel=1e-6)


def test_dask_local_cluster_matches_local_run():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        on_dask = run_sweep(pf_error_cell, CELLS, dask_scheduler=client)
        by_address = run_sweep(pf_error_cell, CELLS[:2], dask_scheduler=cluster.scheduler_address)
    local = run_sweep(pf_error_cell, CELLS)
    assert on_dask == local
    assert by_address == local[:2]


def test_cache_resumes_an_interrupted_sweep(tmp_path):
    log = tmp_path / CALLS_FILE
    cells = [dict(c, log_to=str(log)) for c in CELLS]
    first = run_sweep(pf_error_cell, cells[:3], cache_dir=tmp_path / "cache")
    assert log.read_text().count("\n") == 3
    full = run_sweep(pf_error_cell, cells, cache_dir=tmp_path / "cache")
    assert log.read_text().count("\n") == len(cells)  # only the 3 missing cells ran
    assert full[:3] == first
    assert len(list((tmp_path / "cache").glob("*.json"))) == len(cells)


def test_cell_keys_and_bad_functions():
    assert cell_key(pf_error_cell, {"n": 2, "eps": 1.0}) == cell_key(pf_error_cell,
                                                                      {"eps": 1.0, "n": 2})
    assert cell_key(pf_error_cell, {"n": 2, "eps": 1.0}) != cell_key(pf_error_cell,
                                                                      {"n": 3, "eps": 1.0})
    with pytest.raises(InvalidArgumentError):
        run_sweep(lambda n: n, [{"n": 1}])
    with pytest.raises(InvalidArgumentError):
        run_sweep(pf_error_cell, CELLS, workers=0)
