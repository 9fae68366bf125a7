"""Study runs on a real local Dask cluster: the same results with 1 and 2 workers as in this
process, a worker killed mid-run (by the test, with SIGKILL) costing nothing but time, Ctrl-C
keeping what was done, and a checkpoint resuming a run to exactly the unbroken result."""

from __future__ import annotations

import _thread
import functools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bigboggle import Dictionary, Rules, cluster, study
from bigboggle.analysis import shake_stats
from bigboggle.checkpoint import CheckpointError
from bigboggle.cluster import (
    EARLIER_RUNS,
    ClusterError,
    DaskEngine,
    LocalEngine,
    run_best,
    run_stats,
)
from bigboggle.errors import RulesError
from bigboggle.study import BestRun, DictionarySource, StatsRun, TimeUp, best_chunk, best_command

pytestmark = pytest.mark.once

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def words() -> Dictionary:
    return Dictionary.builtin("standard")


def _stats_run(words: Dictionary, **changes: object) -> StatsRun:
    options: dict[str, object] = {"boards": 6000, "seed": 11, "chunk": 500}
    options.update(changes)
    return StatsRun(Rules.preset("classic"), DictionarySource.of("standard", words), **options)  # type: ignore[arg-type]


def _best_run(words: Dictionary, restarts: int = 6) -> BestRun:
    return BestRun(
        Rules.preset("classic"), DictionarySource.of("standard", words), restarts, 1500, seed=40
    )


def test_stats_on_one_and_two_workers_are_the_stats_of_one_process(words: Dictionary) -> None:
    run = _stats_run(words)
    here = run_stats(run, LocalEngine(threads=2))
    plain = shake_stats(run.rules, words, boards=6000, seed=11)
    assert here.stats == plain
    for workers in (1, 2):
        with DaskEngine(workers=workers) as engine:
            assert len(engine.worker_pids()) == workers
            outcome = run_stats(run, engine)
        assert outcome.stats == plain
        assert (outcome.chunks_done, outcome.chunks, outcome.interrupted) == (12, 12, False)


def test_best_restarts_are_the_same_on_one_and_two_workers(words: Dictionary) -> None:
    run = _best_run(words)
    here = run_best(run, LocalEngine())
    results = {}
    for workers in (1, 2):
        with DaskEngine(workers=workers) as engine:
            results[workers] = run_best(run, engine)
    for outcome in (here, results[1], results[2]):
        assert len(outcome.restarts) == 6
        assert all(a.same_result(b) for a, b in zip(here.restarts, outcome.restarts, strict=True))
        assert outcome.best is not None and here.best is not None
        assert outcome.best.same_result(here.best)
    # Each worker's best is one of its own restarts, and the best of them is the best overall.
    per_worker = results[2].per_worker
    assert 1 <= len(per_worker) <= 2 and all(key.startswith("tcp://") for key in per_worker)
    assert max(r.value for r in per_worker.values()) == here.best.value
    # A restart is one seeded search: run alone, it finds the same board.
    alone = best_chunk(BestRun(run.rules, run.source, 1, 1500, seed=here.best.seed), 0)
    assert (alone.board, alone.value) == (here.best.board, here.best.value)
    assert best_command(run, restarts=1, seed=here.best.seed).endswith(
        f"--restarts 1 --evaluations 1500 --seed {here.best.seed}"
    )


def test_a_worker_killed_mid_run_loses_nothing(words: Dictionary) -> None:
    run = _stats_run(words, boards=16_000, chunk=400)
    expected = run_stats(run, LocalEngine()).stats
    with DaskEngine(workers=2) as engine:
        pids = engine.worker_pids()
        killed: list[int] = []

        def kill_one(done: int, total: int, rate: float | None) -> None:
            if done >= 2000 and not killed:
                victim = min(pids.values())
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)

        outcome = run_stats(run, engine, progress=kill_one)
        after = engine.worker_pids()
    assert killed and killed[0] not in after.values()  # it died; the nanny started another
    assert outcome.stats == expected and not outcome.interrupted


def test_a_search_survives_a_killed_worker(words: Dictionary) -> None:
    run = _best_run(words, restarts=8)
    expected = run_best(run, LocalEngine())
    with DaskEngine(workers=2) as engine:
        pids = engine.worker_pids()
        killed: list[int] = []

        def kill_one(done: int, total: int, rate: float | None) -> None:
            if rate is not None and not killed:  # once a restart is done, not at the start
                os.kill(max(pids.values()), signal.SIGKILL)
                killed.append(1)

        outcome = run_best(run, engine, progress=kill_one)
    assert killed and len(outcome.restarts) == 8
    assert all(a.same_result(b) for a, b in zip(expected.restarts, outcome.restarts, strict=True))


def test_a_stopped_run_resumes_from_its_checkpoint(words: Dictionary, tmp_path: Path) -> None:
    run = _stats_run(words)
    path = str(tmp_path / "run.ckpt")
    whole = run_stats(run, LocalEngine()).stats

    def stop_after_five(done: int, total: int, rate: float | None) -> None:
        if done >= 2500:
            raise KeyboardInterrupt  # as Ctrl-C would, between two chunks

    first = run_stats(run, LocalEngine(), checkpoint=path, progress=stop_after_five)
    assert first.interrupted and first.chunks_done == 5 and first.stats is not None
    assert first.stats.boards == 2500  # what was done is kept and summarised
    # A crash while a line was written leaves half a line: that chunk is done again.
    with open(path, "a") as file:
        file.write('{"chunk": 7, "result": {"first_')
    with DaskEngine(workers=2) as engine:
        second = run_stats(run, engine, checkpoint=path)
    assert second.resumed == 5 and second.chunks_done == 12 and not second.interrupted
    assert second.stats == whole
    lines = Path(path).read_text().splitlines()
    assert len(lines) == 13 and all(json.loads(line) for line in lines)
    # Done: a third run does nothing and says the same.
    third = run_stats(run, LocalEngine(), checkpoint=path)
    assert third.resumed == 12 and third.stats == whole


def test_a_checkpoint_of_another_run_or_damaged_is_refused(
    words: Dictionary, tmp_path: Path
) -> None:
    path = tmp_path / "run.ckpt"
    run_stats(_stats_run(words, boards=1000), LocalEngine(), checkpoint=str(path))
    with pytest.raises(CheckpointError, match="another run's: its boards is 1000, this run's 2000"):
        run_stats(_stats_run(words, boards=2000), LocalEngine(), checkpoint=str(path))
    with pytest.raises(CheckpointError, match="another run's: its kind is"):
        run_best(_best_run(words), LocalEngine(), checkpoint=str(path))
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], "not json", *lines[2:]]) + "\n")
    with pytest.raises(CheckpointError, match="line 2 is damaged"):
        run_stats(_stats_run(words, boards=1000), LocalEngine(), checkpoint=str(path))
    path.write_bytes(b"\x00\xff binary")
    with pytest.raises(CheckpointError, match="line 1 is not a run's header"):
        run_stats(_stats_run(words, boards=1000), LocalEngine(), checkpoint=str(path))
    with pytest.raises(CheckpointError, match="is a directory"):
        run_stats(_stats_run(words, boards=1000), LocalEngine(), checkpoint=str(tmp_path))


def _damaged(path: Path, line: str) -> None:
    """``line`` in place of the checkpoint's second line (not its last: a damaged last line
    is taken as cut off by a crash, and done again)."""
    lines = path.read_text().splitlines()
    assert len(lines) >= 3
    path.write_text("\n".join([lines[0], line, *lines[2:]]) + "\n")


def test_a_damaged_chunk_line_is_refused_with_the_reason_never_merged(
    words: Dictionary, tmp_path: Path
) -> None:
    """Whatever a damaged (or hand-edited) line holds, the run refuses the file, naming the
    line, rather than a traceback, a hang or statistics mixed with numbers no chunk gave."""
    path = tmp_path / "stats.ckpt"
    run = _stats_run(words, boards=1500)  # 3 chunks of 500
    run_stats(run, LocalEngine(), checkpoint=str(path))
    good = json.loads(path.read_text().splitlines()[1])
    chunk, result = good["chunk"], good["result"]

    def with_result(**changes: object) -> str:
        return json.dumps({"chunk": chunk, "result": {**result, **changes}})

    damaged = {
        "huge number": with_result(first_seed=1e999),
        "deep nesting": "[" * 100_000 + "]" * 100_000,
        "chunk past the run": json.dumps({"chunk": 3, "result": result}),
        "counts": with_result(points=[[5, 3]]),
        "text for a count": with_result(points="x"),
        "seeds": with_result(first_seed=result["first_seed"] + 1),
        "board": with_result(best=[{**result["best"][0], "board": "<script>"}]),
        "snapshot past the run": json.dumps({"chunks": [[0, 9]], "merged": result}),
        "snapshot repeated": json.dumps({"chunks": [[0, 2]] * 100_000, "merged": result}),
    }
    original = path.read_text()
    for what, line in damaged.items():
        path.write_text(original)
        _damaged(path, line)
        with pytest.raises(CheckpointError, match="line 2 is damaged") as refused:
            run_stats(run, LocalEngine(), checkpoint=str(path))
        if what in ("counts", "seeds", "board"):
            assert "(" in str(refused.value), what  # says what is wrong with it
    path.write_text(original)
    assert run_stats(run, LocalEngine(), checkpoint=str(path)).resumed == 3

    best_path = tmp_path / "best.ckpt"
    best_run = _best_run(words, restarts=3)
    run_best(best_run, LocalEngine(), checkpoint=str(best_path))
    restart = json.loads(best_path.read_text().splitlines()[1])
    for changes in ({"board": "<script>"}, {"board": "ABCDE/FGHIJ/KLMNO/PQRST/UVWXY"}):
        best_path.write_text(best_path.read_text())
        lines = best_path.read_text().splitlines()
        bad = {**restart, "result": {**restart["result"], **changes}}
        best_path.write_text("\n".join([lines[0], json.dumps(bad), *lines[2:]]) + "\n")
        with pytest.raises(CheckpointError, match="line 2 is damaged"):
            run_best(best_run, LocalEngine(), checkpoint=str(best_path))
        best_path.write_text("\n".join(lines) + "\n")


def test_a_path_that_is_no_file_is_refused_before_any_lock_is_made(
    words: Dictionary, tmp_path: Path
) -> None:
    run = _stats_run(words, boards=500)
    os.mkfifo(tmp_path / "fifo")
    for path, why in (
        (str(tmp_path), "is a directory"),
        (str(tmp_path / "fifo"), "not a regular file"),
        (str(tmp_path / "no" / "such.ckpt"), "no such folder"),
        ("", "needs a file name"),
    ):
        with pytest.raises(CheckpointError, match=why):
            run_stats(run, LocalEngine(), checkpoint=path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]
    assert not (tmp_path.parent / f"{tmp_path.name}.lock").exists()


def test_runs_refuse_bad_sizes(words: Dictionary) -> None:
    source = DictionarySource.of("standard", words)
    rules = Rules.preset("big")
    for bad in ({"boards": 0}, {"boards": True}, {"seed": -1}, {"chunk": 0}):
        with pytest.raises(RulesError):
            StatsRun(rules, source, **{"boards": 10, **bad})  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="pass"):
        StatsRun(rules, source, boards=10, seed=2**63 - 5)
    with pytest.raises(RulesError, match="restarts"):
        BestRun(rules, source, 0)
    with pytest.raises(RulesError, match="objective"):
        BestRun(rules, source, 1, objective="fun")  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="chunk 3"):
        best_chunk(BestRun(rules, source, 2), 3)


def test_a_word_list_file_travels_to_the_workers(tmp_path: Path) -> None:
    listing = tmp_path / "mine.txt"
    listing.write_text("\n".join(["tea", "eat", "ate", "tae", "seat", "east", "teas", "sate"]))
    mine = Dictionary.from_file(listing)
    source = DictionarySource.of(str(listing), mine)
    assert source.data is not None and source.name == str(listing)
    run = StatsRun(Rules.preset("classic"), source, boards=6000, seed=3, chunk=500)
    light, apart = cluster._light(run)
    assert light.source.data is None and apart is source  # each chunk carries the digest only
    # The words reach each worker once (not with every chunk), the one its nanny starts
    # after the only worker is killed mid-run too; the run over, the workers drop them.
    with DaskEngine(workers=1) as engine:
        killed: list[int] = []

        def kill_the_worker(done: int, total: int, rate: float | None) -> None:
            if done >= 1500 and not killed:
                (pid,) = engine.worker_pids().values()
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        outcome = run_stats(run, engine, progress=kill_the_worker)
        assert killed and killed[0] not in engine.worker_pids().values()
        held = engine.client.run(lambda: sorted(study._PROVIDED))
    assert list(held.values()) == [[]]
    expected = shake_stats(Rules.preset("classic"), mine, boards=6000, seed=3)
    assert outcome.stats is not None
    assert outcome.stats.point_counts == expected.point_counts
    assert outcome.stats.dictionary == str(listing)
    with pytest.raises(RulesError, match="did not reach this worker"):
        source.without_data().load()


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "bigboggle", *args]


def test_a_word_list_read_from_a_pipe_is_read_once(tmp_path: Path) -> None:
    """``--dictionary <(…)``: a pipe can be read once; the run's words come from that one read
    (they were read a second time for the workers, from a pipe already drained)."""
    listing = tmp_path / "words.txt"
    listing.write_text("\n".join(["lines", "line", "sale", "stale", "tales", "slate", "least"]))
    command = ["stats", "--rules", "classic", "--boards", "300", "--json"]
    from_file = subprocess.run(
        _cli(*command, "--dictionary", str(listing)), capture_output=True, text=True, timeout=120
    )
    assert from_file.returncode == 0, from_file.stderr
    for extra in ([], ["--cluster", "--workers", "1"]):
        read_end, write_end = os.pipe()
        try:
            process = subprocess.Popen(
                _cli(*command, *extra, "--dictionary", f"/dev/fd/{read_end}"),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                pass_fds=(read_end,),
            )
        finally:
            os.close(read_end)
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(listing.read_bytes())
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        piped = json.loads(out)
        assert piped.pop("dictionary") == f"/dev/fd/{read_end}"
        expected = json.loads(from_file.stdout)
        expected.pop("dictionary")
        assert piped == expected


def test_ctrl_c_on_the_command_line_keeps_what_is_done_and_resumes(tmp_path: Path) -> None:
    """A real SIGINT to the whole process group (as a terminal sends it): the run stops,
    prints the statistics so far, exits 130 with no traceback from the workers, and the same
    command finishes it to the statistics of an unbroken run."""
    checkpoint = tmp_path / "stats.ckpt"
    command = ["stats", "--rules", "classic", "--boards", "60000", "--seed", "9", "--json"]
    process = subprocess.Popen(
        _cli(*command, "--cluster", "--workers", "2", "--checkpoint", str(checkpoint)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if checkpoint.exists() and len(checkpoint.read_text().splitlines()) >= 3:
            break
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "run the same command again to resume" in err
    partial = json.loads(out)
    assert partial["complete"] is False and 0 < partial["boards"] < 60_000
    resumed = subprocess.run(
        _cli(*command, "--cluster", "--workers", "1", "--checkpoint", str(checkpoint)),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "Resumed from" in resumed.stderr
    plain = subprocess.run(_cli(*command), capture_output=True, text=True, timeout=600)
    assert json.loads(resumed.stdout) == json.loads(plain.stdout)


def test_the_command_line_says_what_is_wrong_with_a_cluster() -> None:
    no_cluster = subprocess.run(
        _cli("stats", "--boards", "10", "--workers", "2"), capture_output=True, text=True
    )
    assert no_cluster.returncode != 0 and "add --cluster" in no_cluster.stderr
    both = subprocess.run(
        _cli("stats", "--boards", "10", "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"),
        capture_output=True,
        text=True,
    )
    assert both.returncode == 2 and "--workers is the size of a local cluster" in both.stderr
    bad = subprocess.run(
        _cli("best", "--restarts", "1", "--scheduler", "no-port-here"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode != 0 and "cannot start or reach no-port-here" in bad.stderr
    assert "Traceback" not in bad.stderr
    without_dask = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['distributed'] = None; sys.argv[0] = 'bigboggle'; "
            "from bigboggle.cli import main; main()",
            "stats",
            "--boards",
            "10",
            "--cluster",
        ],
        capture_output=True,
        text=True,
    )
    assert without_dask.returncode != 0
    assert "pip install 'bigboggle[cluster]'" in without_dask.stderr


def test_best_on_the_command_line_reports_workers_and_the_command_again() -> None:
    options = ["--rules", "classic", "--restarts", "4", "--evaluations", "1200", "--seed", "3"]
    clustered = subprocess.run(
        _cli("best", *options, "--cluster", "--workers", "2", "--json"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert clustered.returncode == 0, clustered.stderr
    data = json.loads(clustered.stdout)
    here = json.loads(
        subprocess.run(_cli("best", *options, "--json"), capture_output=True, text=True).stdout
    )
    for key in ("board", "value", "points", "words", "command", "restarts_done"):
        assert data[key] == here[key]
    assert data["restarts_done"] == 4 and data["per_worker"]
    again = data["command"].split()[1:]
    alone = json.loads(
        subprocess.run(_cli(*again, "--json"), capture_output=True, text=True).stdout
    )
    assert (alone["board"], alone["value"]) == (data["board"], data["value"])


def test_a_long_run_keeps_its_checkpoint_small(
    words: Dictionary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every few chunks the file's lines become one snapshot of their merge: it holds the
    header, a snapshot and the chunks since, and resumes to the unbroken result."""
    import bigboggle.cluster

    monkeypatch.setattr(bigboggle.cluster, "COMPACT_EVERY", 4)
    run = _stats_run(words)  # 12 chunks
    path = tmp_path / "run.ckpt"

    def stop_after_ten(done: int, total: int, rate: float | None) -> None:
        if done >= 5000:
            raise KeyboardInterrupt

    run_stats(run, LocalEngine(), checkpoint=str(path), progress=stop_after_ten)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["kind"] == "stats"
    assert [sorted(line) for line in lines[1:]] == [["chunks", "merged"]] + [
        ["chunk", "result"]
    ] * 2
    assert lines[1]["chunks"] == [[0, 7]] and [line["chunk"] for line in lines[2:]] == [8, 9]
    resumed = run_stats(run, LocalEngine(), checkpoint=str(path))
    assert resumed.resumed == 10 and resumed.stats == run_stats(run, LocalEngine()).stats


def test_a_checkpoint_is_never_clobbered_nor_shared(words: Dictionary, tmp_path: Path) -> None:
    run = _stats_run(words, boards=1000)
    real = tmp_path / "real.ckpt"
    link = tmp_path / "link.ckpt"
    link.symlink_to(real)
    (tmp_path / "link.ckpt.part").write_text("someone's file")
    run_stats(run, LocalEngine(), checkpoint=str(link))
    real.chmod(0o600)
    run_stats(run, LocalEngine(), checkpoint=str(link))  # resumed, and written afresh
    assert link.is_symlink() and real.is_file() and (real.stat().st_mode & 0o777) == 0o600
    assert (tmp_path / "link.ckpt.part").read_text() == "someone's file"
    from bigboggle.checkpoint import Checkpoint

    held = Checkpoint(str(real), run.identity(), lambda data: data)
    try:
        with pytest.raises(CheckpointError, match="in use by another run"):
            run_stats(run, LocalEngine(), checkpoint=str(link))
    finally:
        held.close()
    fifo = tmp_path / "fifo.ckpt"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match="not a regular file"):
        run_stats(run, LocalEngine(), checkpoint=str(fifo))
    with pytest.raises(CheckpointError, match="not a regular file"):
        run_stats(run, LocalEngine(), checkpoint="/dev/zero")


def test_a_search_stops_at_its_time_limit_keeping_what_is_done(words: Dictionary) -> None:
    run = _best_run(words, restarts=40)
    outcome = run_best(run, LocalEngine(), deadline=time.monotonic() + 0.5)
    assert outcome.timed_out and not outcome.interrupted
    assert 0 < len(outcome.restarts) < 40 and outcome.best is not None
    with DaskEngine(workers=1) as engine:
        gone = run_best(run, engine, deadline=time.monotonic() - 1)
    assert gone.timed_out and gone.best is None


def test_an_existing_cluster_by_its_scheduler_address(
    words: Dictionary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scheduler and a worker started as a user starts them (``dask scheduler``, ``dask
    worker``): the command line's --scheduler gives the statistics of one process; with the
    worker gone, the run ends with the reason rather than waiting for ever."""
    import bigboggle.cluster

    scheduler, address = _start_scheduler(tmp_path)
    worker = None
    try:
        worker = _start_worker(address)
        command = ["stats", "--rules", "classic", "--boards", "3000", "--seed", "4", "--json"]
        remote = subprocess.run(
            _cli(*command, "--scheduler", address), capture_output=True, text=True, timeout=300
        )
        assert remote.returncode == 0, remote.stderr
        plain = subprocess.run(_cli(*command), capture_output=True, text=True, timeout=300)
        assert json.loads(remote.stdout) == json.loads(plain.stdout)
        worker.terminate()
        worker.wait(timeout=60)
        monkeypatch.setattr(bigboggle.cluster, "PATIENCE_SECONDS", 3)
        with (
            DaskEngine(scheduler=address) as engine,
            pytest.raises(ClusterError, match="no workers for 3 s"),
        ):
            run_stats(_stats_run(words, boards=1000), engine)
    finally:
        for process in (worker, scheduler):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(timeout=60)


def _start_scheduler(tmp_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``dask scheduler`` on a free loopback port, as a user starts one, and its address."""
    dask = str(Path(sys.executable).with_name("dask"))
    address_file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen(
        [
            *(dask, "scheduler", "--host", "127.0.0.1", "--port", "0"),
            *("--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(address_file)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not address_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return scheduler, json.loads(address_file.read_text())["address"]


def _start_worker(address: str) -> subprocess.Popen[bytes]:
    """One ``dask worker`` of one thread for the scheduler at ``address``."""
    dask = str(Path(sys.executable).with_name("dask"))
    return subprocess.Popen(
        [dask, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_a_lost_scheduler_ends_the_run_with_the_reason_and_the_checkpoint_resumes(
    tmp_path: Path,
) -> None:
    """The scheduler killed mid-run: the command says so in one line (exit 2, no traceback,
    not even Dask's), every finished chunk is in the checkpoint, and the same command on
    another scheduler resumes it to the statistics of one unbroken process."""
    scheduler, address = _start_scheduler(tmp_path)
    worker = _start_worker(address)
    checkpoint = tmp_path / "run.ckpt"
    command = ["stats", "--rules", "superbig", "--boards", "50000", "--seed", "9", "--json"]
    command += ["--checkpoint", str(checkpoint)]
    try:
        run = subprocess.Popen(
            _cli(*command, "--scheduler", address),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and run.poll() is None:
            if checkpoint.exists() and len(checkpoint.read_text().splitlines()) >= 3:
                break  # the header and two chunks
            time.sleep(0.1)
        assert run.poll() is None, run.communicate()
        scheduler.kill()
        scheduler.wait(timeout=60)
        out, err = run.communicate(timeout=60)
        assert run.returncode == 2, err
        assert err.strip().splitlines()[-1] == f"Error: the connection to {address} is lost"
        assert "Traceback" not in err and out == ""
        done = len(checkpoint.read_text().splitlines()) - 1
        assert 2 <= done < 5  # of 5 chunks of 10,000
    finally:
        for process in (worker, scheduler):
            if process.poll() is None:
                process.kill()
                process.wait(timeout=60)
    resumed = subprocess.run(_cli(*command), capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    plain = command[: command.index("--checkpoint")]
    unbroken = subprocess.run(_cli(*plain), capture_output=True, text=True, timeout=600)
    assert json.loads(resumed.stdout) == json.loads(unbroken.stdout)


def test_the_best_command_keeps_to_its_time_limit() -> None:
    done = subprocess.run(
        _cli(
            "best",
            "--rules",
            "classic",
            "--restarts",
            "500",
            "--evaluations",
            "3000",
            "--seconds",
            "2",
            "--json",
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["timed_out"] is True and data["complete"] is False
    assert 0 < data["restarts_done"] < 500
    # A limit shorter than one restart: said as the time limit, not as an interruption.
    short = subprocess.run(
        _cli(
            *[
                "best",
                "--rules",
                "classic",
                "--restarts",
                "2",
                "--evaluations",
                "5000000",
                "--seconds",
                "0.5",
            ]
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert short.returncode == 2
    assert short.stderr.strip().splitlines()[-1] == (
        "Error: the time limit (--seconds 0.5) passed before any restart was done; "
        "give it more time, or fewer --evaluations a restart"
    )


def _long_run(words: Dictionary, restarts: int = 3) -> BestRun:
    """Restarts of 5,000,000 boards each: minutes apiece, far past any limit a test sets."""
    return BestRun(
        Rules.preset("classic"), DictionarySource.of("standard", words), restarts, 5_000_000, 40
    )


def test_a_time_limit_cuts_a_long_restart_short_and_keeps_none_of_it(
    words: Dictionary, tmp_path: Path
) -> None:
    """A restart longer than the run's limit stops at the limit, wherever it runs: its board
    is not the one its seed gives with its whole budget, so neither the outcome nor the
    checkpoint keeps it."""
    run = _long_run(words)
    with pytest.raises(TimeUp):
        best_chunk(run, 0, deadline=time.time() + 0.5)
    with pytest.raises(TimeUp):
        best_chunk(run, 0, deadline=time.time() - 1)
    path = tmp_path / "best.ckpt"
    outcome = run_best(run, LocalEngine(), checkpoint=str(path), deadline=time.monotonic() + 1)
    assert outcome.timed_out and not outcome.interrupted
    assert outcome.restarts == [] and outcome.best is None
    assert all('"chunk"' not in line for line in path.read_text().splitlines())
    # On a worker, a chunk cut by the limit comes back as the time being up (not as a failed
    # chunk), even when the client's own clock has not yet said so.
    with DaskEngine(workers=1) as engine, pytest.raises(TimeUp):
        engine.run(
            functools.partial(best_chunk, deadline=time.time() + 1),
            run,
            [0],
            lambda *done: None,
        )


def test_ctrl_c_inside_a_local_restart_stops_the_run_and_keeps_no_part_of_it(
    words: Dictionary, tmp_path: Path
) -> None:
    """The search keeps its best board on Ctrl-C; a run of restarts must stop there too
    (not take the cut restart as done and start the next)."""
    path = tmp_path / "best.ckpt"
    timer = threading.Timer(1.0, _thread.interrupt_main)  # Ctrl-C, a second in
    timer.start()
    try:
        outcome = run_best(_long_run(words), LocalEngine(), checkpoint=str(path))
    finally:
        timer.cancel()
    assert outcome.interrupted and outcome.restarts == [] and outcome.best is None
    assert all('"chunk"' not in line for line in path.read_text().splitlines())


def test_a_resumed_search_names_the_earlier_runs_apart_from_its_workers(
    words: Dictionary, tmp_path: Path
) -> None:
    run = _best_run(words, restarts=4)
    path = str(tmp_path / "best.ckpt")

    def stop_after_two(done: int, total: int, rate: float | None) -> None:
        if done >= 2 * run.evaluations:
            raise KeyboardInterrupt

    first = run_best(run, LocalEngine(), checkpoint=path, progress=stop_after_two)
    assert first.interrupted and len(first.restarts) == 2
    assert list(first.per_worker) == ["local"]
    with DaskEngine(workers=1) as engine:
        second = run_best(run, engine, checkpoint=path)
    assert second.resumed == 2 and len(second.restarts) == 4
    assert set(second.per_worker) - {EARLIER_RUNS} == {
        restart.worker for restart in second.restarts[2:]
    }
    assert second.per_worker[EARLIER_RUNS].index < 2


def test_an_error_before_a_run_starts_is_not_printed_under_a_progress_bar(
    tmp_path: Path,
) -> None:
    checkpoint = tmp_path / "stats.ckpt"
    made = subprocess.run(
        _cli("stats", "--rules", "classic", "--boards", "200", "--checkpoint", str(checkpoint)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    refused = subprocess.run(
        _cli(
            "best",
            "--rules",
            "classic",
            "--restarts",
            "2",
            "--evaluations",
            "500",
            "--checkpoint",
            str(checkpoint),
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 2 and "another run's" in refused.stderr
    assert "Searching" not in refused.stderr and "Traceback" not in refused.stderr


def test_a_word_list_given_by_two_runs_stays_until_both_are_over() -> None:
    source = DictionarySource("mine.txt", "d1g357", b"tea\neat\nate\n")
    study.provide(source)
    study.provide(source)
    try:
        study.withdraw(source.digest)
        assert len(source.without_data().load()) == 3  # the other run still needs it
    finally:
        study.withdraw(source.digest)
    assert source.digest not in study._PROVIDED


def test_a_restart_cut_short_in_a_checkpoint_is_done_again(
    words: Dictionary, tmp_path: Path
) -> None:
    run = _best_run(words, restarts=3)
    path = tmp_path / "best.ckpt"
    whole = run_best(run, LocalEngine(), checkpoint=str(path))
    # As an earlier version left a restart that Ctrl-C cut short: fewer boards than its budget.
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        if line.get("chunk") == 1:
            line["result"]["evaluations"] = 10
            line["result"]["board"] = "AAAA/AAAA/AAAA/AAAA"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    again = run_best(run, LocalEngine(), checkpoint=str(path))
    assert again.resumed == 2 and len(again.restarts) == 3
    assert all(a.same_result(b) for a, b in zip(whole.restarts, again.restarts, strict=True))
