"""Sweeps: the same results serially, on a process pool, on Dask, and from the cache."""

import json
import math
import os

import pytest

from optmech.resources import usable_workers
from optmech.sweep import ClusterError, cell_key, run_sweep
from optmech.validation import InvalidArgumentError, NonFiniteResultError

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
                                  protocol="tcp://", host="127.0.0.1",
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


def interrupting_cell(n, eps, stop_at):
    """Like pf_error_cell, but Ctrl-C arrives while cell ``n == stop_at`` runs."""
    if n == stop_at:
        raise KeyboardInterrupt
    return pf_error_cell(n, eps)


def nan_cell(n, eps):
    return {"error": float("nan") if n == 5 else 1.0}


def test_an_interrupted_sweep_leaves_a_consistent_cache(tmp_path):
    cache = tmp_path / "cache"
    cells = [dict(c, stop_at=40) for c in CELLS]
    with pytest.raises(KeyboardInterrupt):
        run_sweep(interrupting_cell, cells, cache_dir=cache)
    entries = list(cache.glob("*.json"))
    assert len(entries) == 4                         # the cells before n = 40, whole
    assert not list(cache.glob("*.tmp*"))
    resumed = run_sweep(interrupting_cell, [dict(c, stop_at=-1) for c in CELLS[:4]],
                        cache_dir=cache)
    assert resumed == run_sweep(pf_error_cell, CELLS[:4])


@pytest.mark.parametrize("damage", ["truncate", "empty", "garbage", "double", "nan", "key"])
def test_a_damaged_cache_entry_is_recomputed_not_used(tmp_path, capsys, damage):
    cache = tmp_path / "cache"
    log = tmp_path / CALLS_FILE
    cells = [dict(c, log_to=str(log)) for c in CELLS[:2]]
    good = run_sweep(pf_error_cell, cells, cache_dir=cache)
    path = cache / f"{cell_key(pf_error_cell, cells[0])}.json"
    text = path.read_text()
    entry = json.loads(text)
    if damage == "truncate":
        path.write_text(text[:len(text) // 2])
    elif damage == "empty":
        path.write_text("")
    elif damage == "garbage":
        path.write_bytes(b"\xff\xfe not json")
    elif damage == "double":           # well formed, numbers altered, checksum kept
        entry["value"]["error"] *= 2
        path.write_text(json.dumps(entry))
    elif damage == "nan":
        entry["value"]["error"] = float("nan")
        path.write_text(json.dumps(entry))
    else:                              # an entry copied from another cell
        path.write_text((cache / f"{cell_key(pf_error_cell, cells[1])}.json").read_text())
    capsys.readouterr()
    again = run_sweep(pf_error_cell, cells, cache_dir=cache)
    err = capsys.readouterr().err
    assert again == good
    assert log.read_text().count("\n") == 3          # two first runs, one recomputation
    assert err.count("\n") == 1 and "recomputing" in err
    assert json.loads(path.read_text())["value"] == good[0]    # repaired in place


def test_bad_cache_folders_and_scheduler_addresses_are_refused(tmp_path):
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    with pytest.raises(InvalidArgumentError) as info:
        run_sweep(pf_error_cell, CELLS, cache_dir=a_file)
    assert info.value.argument == "cache_dir"
    pytest.importorskip("distributed")
    for bogus in ("bogus", "tcp://", "http://x:1", 42):
        with pytest.raises(InvalidArgumentError) as info:
            run_sweep(pf_error_cell, CELLS, dask_scheduler=bogus)
        assert info.value.argument == "dask_scheduler"


def test_an_unreachable_scheduler_fails_fast_before_any_cell(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    import optmech.sweep.cluster

    log = tmp_path / CALLS_FILE
    # fast: the probe's own bounded connect (a refused connection is tried again until the
    # timeout, "within 5 s" in the message), not a wait for a cell or a Dask timeout; the
    # timeout shortened to half a second, so that the test does not wait 5 s for nothing
    monkeypatch.setattr(optmech.sweep.cluster, "CONNECT_TIMEOUT", 0.5)
    with pytest.raises(ClusterError, match="cannot reach .* within 0.5 s"):
        run_sweep(pf_error_cell, [dict(c, log_to=str(log)) for c in CELLS],
                  dask_scheduler="tcp://127.0.0.1:9")      # the discard port: nothing listens
    assert not log.exists()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_non_finite_cell_result_is_an_error(tmp_path, workers):
    with pytest.raises(NonFiniteResultError):
        run_sweep(nan_cell, CELLS, workers=workers, cache_dir=tmp_path / "cache")
    for path in (tmp_path / "cache").glob("*.json"):
        assert math.isfinite(json.loads(path.read_text())["value"]["error"])


def test_workers_are_capped_at_the_usable_cores():
    assert usable_workers(100_000) == len(os.sched_getaffinity(0))
    assert run_sweep(pf_error_cell, CELLS[:3], workers=100_000) == \
        run_sweep(pf_error_cell, CELLS[:3])


def warning_cell(x):
    """A cell whose computation warns (as a numerical warning would)."""
    import warnings

    warnings.warn("overflow encountered in a test cell", RuntimeWarning)
    return {"x": x}


def test_every_executor_applies_the_callers_warning_policy():
    """The same input gives the same outcome locally, on a pool and on Dask: a warning the
    caller turns into an error is an error on every executor, and only then."""
    import warnings

    distributed = pytest.importorskip("distributed")
    cells = [{"x": 1}, {"x": 2}]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        executors = [{}, {"workers": 2}, {"dask_scheduler": client}]
        for options in executors:
            with warnings.catch_warnings():
                warnings.simplefilter("error", RuntimeWarning)
                with pytest.raises(RuntimeWarning, match="test cell"):
                    run_sweep(warning_cell, cells, **options)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                assert run_sweep(warning_cell, cells, **options) == [{"x": 1}, {"x": 2}]


@pytest.mark.parametrize("address, expected", [
    ("tcp://127.0.0.1:8786", "tcp://127.0.0.1:8786"), ("localhost:1", "tcp://localhost:1"),
    ("tcp://[::1]:65535", "tcp://[::1]:65535"), (" scheduler.local:8786 ", "tcp://scheduler.local:8786")])
def test_scheduler_addresses_are_normalised(address, expected):
    from optmech.sweep import scheduler_address

    assert scheduler_address(address) == expected


@pytest.mark.parametrize("address", [
    "tls://127.0.0.1:1", "inproc://x", "ucx://127.0.0.1:1", "ws://h:1", "127.0.0.1:0",
    "127.0.0.1:65536", "tcp://127.0.0.1:99999", "tcp://" + "a" * 3000 + ":1",
    "tcp://" + "a" * 64 + ".local:1", "tcp://-x-:1", "tcp://a..b:1", "[::1x]:1", "h:", ":1",
    None, 8786])
def test_addresses_dask_cannot_use_are_refused_as_bad_input(address):
    from optmech.sweep import scheduler_address

    with pytest.raises(InvalidArgumentError) as info:
        scheduler_address(address)
    assert info.value.argument == "dask_scheduler" and "tcp://HOST:PORT" in info.value.allowed


def _entry(cache, cells, i=0):
    return cache / f"{cell_key(pf_error_cell, cells[i])}.json"


@pytest.mark.parametrize("poison", ["dev-zero", "fifo", "directory", "deep-json", "big",
                                    "forged", "old-format"])
def test_an_entry_that_is_not_a_signed_regular_file_is_never_used(tmp_path, capsys,
                                                                   poison):
    import hashlib

    cache = tmp_path / "cache"
    log = tmp_path / CALLS_FILE
    cells = [dict(c, log_to=str(log)) for c in CELLS[:2]]
    good = run_sweep(pf_error_cell, cells, cache_dir=cache)
    path = _entry(cache, cells)
    entry = json.loads(path.read_text())
    path.unlink()
    if poison == "dev-zero":
        path.symlink_to("/dev/zero")
    elif poison == "fifo":
        os.mkfifo(path)
    elif poison == "directory":
        path.mkdir()
    elif poison == "deep-json":
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif poison == "big":
        with open(path, "wb") as f:
            f.truncate(2**40)                       # sparse
    elif poison == "forged":     # altered value, re-hashed: whoever lacks the key can do this
        entry["value"]["error"] *= 2
        entry["signature"] = hashlib.sha256(json.dumps(entry["value"]).encode()).hexdigest()
        path.write_text(json.dumps(entry))
    else:
        value = entry.pop("value")
        path.write_text(json.dumps({"format": 1, "key": entry["key"], "value": value,
                                    "sha256": hashlib.sha256(b"x").hexdigest()}))
    capsys.readouterr()
    again = run_sweep(pf_error_cell, cells, cache_dir=cache)
    lines = capsys.readouterr().err.splitlines()
    assert again == good
    assert log.read_text().count("\n") == 3          # two first runs, one recomputation
    assert lines and all(line.startswith("optmech: warning: ") for line in lines)
    assert "recomputing" in lines[0]


def test_the_signing_key_is_private_and_made_once(tmp_path, monkeypatch):
    import stat

    from optmech.sweep import cache_secret_path

    key = tmp_path / "config" / "key"
    monkeypatch.setenv("OPTMECH_CACHE_KEY", str(key))
    assert cache_secret_path() == key
    first = run_sweep(pf_error_cell, CELLS[:1], cache_dir=tmp_path / "cache")
    secret = key.read_bytes()
    assert len(secret) == 32 and stat.S_IMODE(key.stat().st_mode) == 0o600
    # another key: the entries are foreign, so recomputed (and re-signed), never used
    key.write_bytes(b"k" * 32)
    assert run_sweep(pf_error_cell, CELLS[:1], cache_dir=tmp_path / "cache") == first
    key.write_bytes(b"short")
    with pytest.raises(InvalidArgumentError, match="at least 32 bytes"):
        run_sweep(pf_error_cell, CELLS[:1], cache_dir=tmp_path / "cache")


def test_temporary_files_of_killed_sweeps_are_removed(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    dead = cache / ".optmech-999999999-0123456789ab.part"   # no such process
    alive = cache / ".optmech-1-0123456789ab.part"           # init is always running
    dead.write_text("{")
    alive.write_text("{")
    run_sweep(pf_error_cell, CELLS[:1], cache_dir=cache)
    assert not dead.exists() and alive.exists()


def test_a_fetch_abandoned_by_a_failed_cluster_is_not_reported_but_other_errors_are():
    """Our client's loop drops asyncio's "never retrieved" report of Dask's AllExit (a fetch
    left behind when the cluster failed; the sweep already said so in one line) and of
    cluster failures; any other report reaches asyncio's default handler."""
    import asyncio

    distributed = pytest.importorskip("distributed")
    from optmech.sweep.cluster import _drop_abandoned_waits

    class Loop:
        def __init__(self):
            self.reported = []

        def default_exception_handler(self, context):
            self.reported.append(context)

    loop = Loop()
    never = "Task exception was never retrieved"
    _drop_abandoned_waits(loop, {"message": never, "exception": distributed.client.AllExit()})
    _drop_abandoned_waits(loop, {"message": never, "exception": OSError("connection lost")})
    _drop_abandoned_waits(loop, {"message": never, "exception": asyncio.CancelledError()})
    assert loop.reported == []
    for context in ({"message": never, "exception": ValueError("a bug")},
                    {"message": "Future exception was never retrieved",
                     "exception": distributed.client.AllExit()}):
        _drop_abandoned_waits(loop, context)
    assert len(loop.reported) == 2
