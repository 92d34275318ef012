"""A Loader's life: an epoch left early (break, an exception, an iterator kept open to the end of
the script) stops its producer thread before MPI is finalised, so the process exits with its own
status, never a crash (each case is run many times: the crash it guards against came one run in
two); one epoch at a time; and epoch_stats() counts the caller's time with a batch as compute."""
import os
import subprocess
import sys

import pytest
import torch

import loom

RUNS = 10  # per case; bench/results/python.md has 200-run figures

EXITS = {
    "iterator kept to exit": "it = loader.epoch(0)\nnext(it)\nsys.exit(0)",
    "first batch only": "next(iter(loader.epoch(0)))\nsys.exit(0)",
    "exception in the model": "for batch in loader.epoch(0):\n    raise ValueError('model failed')",
    "break then exit": "for batch in loader.epoch(0):\n    break\nsys.exit(0)",
}


@pytest.mark.parametrize("case", sorted(EXITS))
def test_leaving_an_epoch_early_ends_the_process_with_its_own_status(sbm, case):
    script = (
        f"import os, sys, loom\nloader = loom.Loader({sbm!r}, fanouts=[10, 5], batch_size=64, seed=1)\n{EXITS[case]}\n"
    )
    expected = 1 if "exception" in case else 0
    for run in range(RUNS):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert done.returncode == expected, f"run {run}: status {done.returncode}\n{done.stderr[-2000:]}"
        if expected:
            assert "ValueError: model failed" in done.stderr


def test_one_epoch_at_a_time_and_a_closed_epoch_frees_the_loader(sbm):
    loader = loom.Loader(sbm, fanouts=[10, 5], batch_size=64, seed=1)
    open_epoch = loader.epoch(0)
    next(open_epoch)
    with pytest.raises(loom.Error, match="epoch 0 is still being iterated"):
        next(loader.epoch(1))
    open_epoch.close()
    for batch in loader.epoch(1):
        break
    assert len(list(loader.epoch(2))) == loader.steps(2)


def test_each_pass_over_the_loader_is_the_next_epoch_unless_set_epoch_says(sbm):
    loader = loom.Loader(sbm, fanouts=[10, 5], batch_size=64, seed=1)
    seeds = lambda batches: [b.seeds.tolist() for b in batches]  # noqa: E731
    assert len(loader) == loader.steps(0)
    first, second = seeds(loader), seeds(loader)
    assert first == seeds(loader.epoch(0)) and second == seeds(loader.epoch(1)) and first != second
    loader.set_epoch(3)
    assert seeds(loader) == seeds(loader.epoch(3))


def test_epoch_stats_count_the_callers_time_as_compute(sbm):
    loader = loom.Loader(sbm, fanouts=[10, 5], batch_size=64, seed=1)
    model = loom.nn.GraphSAGE(loader.feat_dim, 64, loader.num_classes, num_layers=2)
    sync = loom.comm.GradientSync(list(model.parameters()))
    for batch in loader.epoch(0):
        torch.nn.functional.cross_entropy(model(batch.x, batch.blocks), batch.y).backward()
        sync.all_reduce()
    stats = loader.epoch_stats()
    assert stats["epoch"] == 1  # loader.epoch(0) is `loom train`'s epoch 1
    phases = stats["phases_seconds"]
    assert phases["compute"] > 0, stats
    assert phases["compute"] + phases["allreduce"] <= stats["epoch_seconds"]


def test_loom_run_works_any_number_of_times_in_one_process_and_raises_the_cli_message(sbm, tmp_path):
    script = f"""
import loom
train = ["train", {sbm!r}, "--fanouts", "5,5", "--layers", "2", "--hidden", "8", "--epochs", "1"]
loom.run(*train)
loom.run(*train, "--metrics", {str(tmp_path / "run.jsonl")!r})
try:
    loom.run("train", {sbm!r}, "--fanouts", "5,5", "--epochs", "1")
except loom.Error as e:
    print("ERROR", e)
loom.partition({sbm!r}, {str(tmp_path / "one")!r}, k=1)
loom.run("fullgraph", {str(tmp_path / "one")!r}, "--layers", "2", "--hidden", "8", "--epochs", "1")
try:
    loom.run("fullgraph", {sbm!r}, "--layers", "2", "--epochs", "1")
except loom.Error as e:
    print("ERROR", e)
loom.run(*train)
print("DONE")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    errors = [line for line in done.stdout.splitlines() if line.startswith("ERROR")]
    assert errors == [
        "ERROR argument --fanouts: 2 fanouts (5,5) for a 3-layer model (--layers): give one fanout per layer",
        f"ERROR {sbm}: full-graph training needs a partitioned store: run `loom partition {sbm} -k N -o PARTS` first",
    ]
    assert done.stdout.rstrip().endswith("DONE")
