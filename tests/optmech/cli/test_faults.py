"""Faults around a command: signals, clusters that fail, servers that are not Dask, caches
that lie, a planted benchmark, a regenerate whose checks fail.

Every command here runs as its own ``optmech`` process.  The contract: it ends (no hang),
leaves no process behind, and says what happened in one line with the right exit status
(1 could not finish, 2 bad input).  Nothing here depends on how long anything takes: waits
are for a readiness signal (a pool started, a cell cached, the process gone), and the
timeouts only turn a hang into a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.cli_helpers import without_status

REPO = Path(__file__).resolve().parents[3]
# A sweep of 400 cells, about 40 CPU s: still running whenever a test acts on it after its
# first cells (the 60 cells it had before took 0.6 s once the tests ran one BLAS thread, and
# a sweep that ended first turned a signal test into a race).
LONG_SWEEP = ["lattice", "ratio", "--n", "5,6", "--k", "5", "--eps", "0.05:0.6:200", "--json"]
SMALL_SWEEP = ["hetero", "run", "--scenario", "1", "--eps", "1", "--trials", "1",
               "--mechanisms", "uniform,rnm", "--json"]
HANG = 900              # seconds after which a command counts as hung (a hang detector only)


def optmech(*argv: str, cwd=REPO, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "optmech", *argv], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **kwargs)


def _table() -> dict[int, tuple[int, str]]:
    table = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                table[int(entry.name)] = (int(fields[1]), fields[0])
    return table


def children(pid: int) -> list[int]:
    """Live (not zombie) child processes of ``pid``."""
    return [p for p, (parent, state) in _table().items() if parent == pid and state != "Z"]


def alive(pids) -> list[int]:
    table = _table()
    return [p for p in pids if p in table and table[p][1] != "Z"]


def _wait_for(condition, process: subprocess.Popen | None = None, step: float = 0.05) -> bool:
    """Poll ``condition()`` until it holds; False if ``process`` ended first (then the
    condition will not come).  No deadline: the test's own hang guard ends a stuck wait."""
    while not condition():
        if process is not None and process.poll() is not None:
            return bool(condition())
        time.sleep(step)
    return True


def _kill_all(pids) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _one_error_line(err: str) -> str:
    lines = [line for line in without_status(err) if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("optmech: error: "), err[-3000:]
    assert "internal error" not in lines[0] and "Traceback" not in err
    return lines[0]


# --- signals: pool workers die with their command -----------------------------------------

@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_pool_workers_do_not_outlive_their_command(tmp_path, signum):
    process = optmech(*LONG_SWEEP, "--workers", "2", "--cache", str(tmp_path / "cache"))
    try:
        assert _wait_for(lambda: len(children(process.pid)) >= 2, process), "no pool started"
        assert _wait_for(lambda: any((tmp_path / "cache").glob("*.json")), process)
        workers = children(process.pid)
        process.send_signal(signum)
        process.communicate(timeout=HANG)
        # the kernel ends them when the command dies (PR_SET_PDEATHSIG): wait for that
        # signal's effect, whatever the load; a worker that never ends hangs the test
        _wait_for(lambda: not alive(workers))
        assert process.returncode != 0
    finally:
        _kill_all(alive(children(process.pid)) + [process.pid])


# --- Dask: servers that are not schedulers, clusters that fail ----------------------------

def _serve(reply) -> tuple[socket.socket, int]:
    """A TCP server on 127.0.0.1 that hands every connection to ``reply(conn)``."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)

    def loop():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=reply, args=(conn,), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
    return server, server.getsockname()[1]


def _banner(conn):
    conn.sendall(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n")
    time.sleep(30)
    conn.close()


def _http(conn):
    conn.settimeout(30)
    with contextlib.suppress(OSError):
        conn.recv(4096)
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    time.sleep(30)
    conn.close()


def _silent(conn):
    time.sleep(30)
    conn.close()


def _huge_frame(conn):
    # what Dask would read as "1 frame of 2^62 bytes" (the 3.07 EiB allocation)
    conn.sendall((1).to_bytes(8, "little") + (2**62).to_bytes(8, "little"))
    time.sleep(30)
    conn.close()


@pytest.mark.slow
@pytest.mark.parametrize("reply", [_banner, _http, _silent, _huge_frame],
                         ids=["banner", "http", "silent", "huge-frame"])
def test_a_server_that_is_not_a_dask_scheduler_is_refused_in_one_line(reply):
    pytest.importorskip("distributed")
    from optmech.sweep import CONNECT_TIMEOUT

    server, port = _serve(reply)
    try:
        process = optmech(*SMALL_SWEEP, "--dask-scheduler", f"tcp://127.0.0.1:{port}")
        out, err = process.communicate(timeout=HANG)
    finally:
        server.close()
    line = _one_error_line(err)
    assert process.returncode == 1 and out == ""
    assert "not a Dask scheduler" in line, line
    # the refusal comes from the handshake probe (what it saw, or its connect timeout),
    # not from a read that waits for Dask's own 60 s timeout
    # (an HTTP server waits for the client to speak first, as a silent one)
    expected = (f"no Dask handshake within {CONNECT_TIMEOUT:g} s" if reply in (_silent, _http)
                else "it answered")
    assert expected in line, line


def _scheduler_and_worker(tmp_path, workers: int = 1):
    """A Dask scheduler and worker processes on 127.0.0.1 (``dask`` command line)."""
    dask = Path(sys.executable).with_name("dask")
    file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port", "0",
                                  "--no-dashboard", "--scheduler-file", str(file)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert _wait_for(lambda: _address(file) is not None, scheduler), \
        "the scheduler did not start"
    address = _address(file)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = [subprocess.Popen([str(dask), "worker", address, "--nthreads", "1",
                                 "--no-dashboard", "--no-nanny"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for _ in range(workers)]
    return scheduler, started, address


def _address(file: Path) -> str | None:
    """The scheduler's address once its file is written whole (None before)."""
    try:
        return json.loads(file.read_text())["address"]
    except (OSError, ValueError, KeyError):
        return None


@pytest.mark.slow
@pytest.mark.parametrize("lost", ["every worker", "the scheduler"])
def test_a_cluster_that_fails_during_the_sweep_ends_it_in_one_line(tmp_path, lost):
    """Killed mid-sweep: every worker (the sweep waits at most 30 s for a new one) or the
    scheduler.  One line, exit 1, no Dask traceback."""
    pytest.importorskip("distributed")
    scheduler, workers, address = _scheduler_and_worker(tmp_path)
    process = None
    try:
        cache = tmp_path / "cache"
        process = optmech(*LONG_SWEEP, "--dask-scheduler", address, "--cache", str(cache))
        assert _wait_for(lambda: any(cache.glob("*.json")), process), "no cell finished"
        _kill_all([w.pid for w in workers] if lost == "every worker" else [scheduler.pid])
        out, err = process.communicate(timeout=HANG)
        line = _one_error_line(err)
        assert process.returncode == 1, line
        assert ("no worker" if lost == "every worker" else "Dask") in line, line
    finally:
        _kill_all([w.pid for w in workers] + [scheduler.pid]
                  + ([process.pid] if process else []))


# --- caches that lie ----------------------------------------------------------------------

def _seeded_cache(tmp_path) -> tuple[Path, list[Path], str]:
    cache = tmp_path / "cache"
    process = optmech(*SMALL_SWEEP, "--cache", str(cache))
    out, err = process.communicate(timeout=HANG)
    assert process.returncode == 0, err
    return cache, sorted(cache.glob("*.json")), out


def _rerun(cache: Path) -> tuple[int, str, str]:
    process = optmech(*SMALL_SWEEP, "--cache", str(cache),
                      preexec_fn=_limit_memory)
    out, err = process.communicate(timeout=HANG)
    return process.returncode, out, err


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (6 * 2**30, 6 * 2**30))


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.slow
@pytest.mark.parametrize("poison", ["dev-zero", "deep-json", "directory", "fifo",
                                    "wrong-type", "big-file"])
def test_a_poisoned_cache_entry_is_recomputed_and_the_run_succeeds(tmp_path, poison):
    import hashlib

    from optmech.sweep import CACHE_FORMAT

    cache, entries, expected = _seeded_cache(tmp_path)
    target = entries[0]
    target.unlink()
    if poison == "dev-zero":
        target.symlink_to("/dev/zero")
    elif poison == "deep-json":
        target.write_text(_nested(100_000))
    elif poison == "directory":
        target.mkdir()
    elif poison == "fifo":
        os.mkfifo(target)
    elif poison == "big-file":
        with open(target, "wb") as f:
            f.truncate(2**40)                   # sparse: 1 TiB of zeros, no disk used
    else:       # a value of the wrong type with a checksum its author could compute
        value = ["not", "a", "cell", "result"]
        digest = hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()
        entry = {"format": CACHE_FORMAT, "key": target.stem, "value": value,
                 "signature": digest, "sha256": digest}
        target.write_text(json.dumps(entry))
    code, out, err = _rerun(cache)
    notes = [line for line in without_status(err) if line.strip()]
    assert code == 0, err[-2000:]
    assert json.loads(out) == json.loads(expected)
    assert notes and all(line.startswith("optmech: warning: ") for line in notes), notes


def _disk_full() -> None:
    """In a child process: every file write beyond 16 bytes fails (EFBIG), as on a full
    disk (pipes are not files: stdout and stderr still work)."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))


def test_a_cache_that_cannot_be_written_leaves_no_temporary_file(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    process = optmech(*SMALL_SWEEP, "--cache", str(cache), preexec_fn=_disk_full)
    out, err = process.communicate(timeout=HANG)
    assert not [p.name for p in cache.iterdir()], "a failed write left a file behind"
    notes = [line for line in without_status(err) if line.strip()]
    assert process.returncode == 0 and json.loads(out)["results"], err[-2000:]
    assert len(notes) == 1 and notes[0].startswith("optmech: warning: "), notes


# --- a planted benchmark (a regenerate whose checks fail: test_outputs.py) ----------------

def test_bench_never_runs_code_from_the_current_folder(tmp_path):
    planted = tmp_path / "benchmarks"
    planted.mkdir()
    (planted / "__init__.py").write_text("")
    marker = tmp_path / "planted-code-ran"
    (planted / "__main__.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    (planted / "evil.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    process = optmech("bench", "--only", "evil", cwd=tmp_path)
    out, err = process.communicate(timeout=HANG)
    assert not marker.exists(), "optmech bench ran code planted in the current folder"
    line = _one_error_line(err)
    assert process.returncode == 2, err[-2000:]
    if _installed_from_checkout(tmp_path):
        # the modules offered are the checkout's own, whatever the current folder holds
        assert "--only" in line, line
    else:
        # a regular (not editable) install has no benchmarks: bench refuses, naming why
        assert "source checkout" in line, line


def _installed_from_checkout(folder: Path) -> bool:
    """Whether the ``optmech`` a command run in ``folder`` imports is this checkout's (an
    editable install), not a copy in site-packages (asked of a fresh interpreter there: the
    test process itself may import the checkout from its own folder)."""
    where = subprocess.run([sys.executable, "-c", "import optmech; print(optmech.__file__)"],
                           cwd=folder, capture_output=True, text=True, check=True).stdout
    return Path(where.strip()).resolve().parent.parent == REPO.resolve()
