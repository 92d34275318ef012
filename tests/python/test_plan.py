"""loom.plan: the plan of `loom plan --json` as a dict, the same options as the CLI, its errors
as loom.Error naming the option by its Python name."""
import pytest

import loom

CLUSTER = """name = "pytest hosts"
[host]
cores = 8
memory = "64G"
sampled_edges_per_core_second = 2e7
gathered_bytes_per_core_second = 2e9
[compute]
flops = 2e10
values = 2e9
step_overhead = "1ms"
[network]
bandwidth = "10Gbit"
latency = "30us"
host_bandwidth = "2GB/s"
host_latency = "100us"
"""


def test_plan_predicts_every_regime_for_every_host_count(sbm, tmp_path):
    cluster = tmp_path / "cluster.toml"
    cluster.write_text(CLUSTER)
    plan = loom.plan(
        str(sbm), cluster=str(cluster), hosts=[2, 4], fanouts="10,5", layers=2, hidden=32, batch_size=64, alphas=[0.1]
    )
    assert [h["hosts"] for h in plan["hosts"]] == [2, 4]
    for hosts in plan["hosts"]:
        kinds = {r["kind"] for r in hosts["regimes"]}
        assert kinds == {"replicated", "partitioned", "pipelined", "cache", "prefetch"}, kinds
        by_kind = {r["kind"]: r for r in hosts["regimes"]}
        assert by_kind["replicated"]["bytes"]["features"] == 0
        assert by_kind["cache"]["bytes"]["features"] < by_kind["pipelined"]["bytes"]["features"]
        # The pipeline hides some of the fetch the synchronous regime waits for.
        assert by_kind["pipelined"]["epoch"]["epoch_seconds"] <= by_kind["partitioned"]["epoch"]["epoch_seconds"]
        assert hosts["fastest_fitting"] is not None


def test_plan_errors_name_the_python_option(sbm, tmp_path):
    cluster = tmp_path / "cluster.toml"
    cluster.write_text(CLUSTER.replace("cores = 8", "cores = 8\nsockets = 2"))
    with pytest.raises(loom.Error, match="sockets"):
        loom.plan(str(sbm), cluster=str(cluster), hosts=[2])
    cluster.write_text(CLUSTER)
    with pytest.raises(loom.Error, match="hosts"):
        loom.plan(str(sbm), cluster=str(cluster), hosts=[0])


def test_report_draws_a_plan(sbm, tmp_path):
    import json

    from loom import report

    cluster = tmp_path / "cluster.toml"
    cluster.write_text(CLUSTER)
    plan = loom.plan(
        str(sbm), cluster=str(cluster), hosts=[2, 4], fanouts="10,5", layers=2, hidden=32, batch_size=64, alphas=[0.1]
    )
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    page = tmp_path / "plan.html"
    assert report.main(["--plan", str(path), "-o", str(page)]) == 0
    text = page.read_text()
    assert text.count("data:image/png;base64,") == 2
    assert "fastest that fits" in text
    with pytest.raises(SystemExit, match="not a plan"):
        (tmp_path / "bad.json").write_text("[1, 2]")
        report.main(["--plan", str(tmp_path / "bad.json"), "-o", str(page)])


def test_plan_fullgraph_predicts_graph_and_pipe_modes(sbm, tmp_path):
    cluster = tmp_path / "cluster.toml"
    cluster.write_text(CLUSTER)
    plan = loom.plan_fullgraph(str(sbm), cluster=str(cluster), hosts=[2, 4], model="gcnii", layers=8, hidden=16)
    assert [h["hosts"] for h in plan["hosts"]] == [2, 4]
    for hosts in plan["hosts"]:
        modes = {m["mode"]: m for m in hosts["modes"]}
        assert set(modes) == {"graph", "pipe"}
        assert modes["graph"]["bytes"]["halo"] > 0 and modes["graph"]["bytes"]["activations"] == 0
        assert modes["pipe"]["bytes"]["activations"] > 0 and modes["pipe"]["bytes"]["halo"] == 0
        assert len(modes["pipe"]["layer_bounds"]) == hosts["hosts"] + 1
        assert hosts["fastest"] in modes
    with pytest.raises(loom.Error, match="ways"):
        loom.plan_fullgraph(str(sbm), cluster=str(cluster), hosts=[4], modes=["hybrid"], ways=3)


def test_report_draws_a_fullgraph_plan(sbm, tmp_path):
    import json

    from loom import report

    cluster = tmp_path / "cluster.toml"
    cluster.write_text(CLUSTER)
    plan = loom.plan_fullgraph(str(sbm), cluster=str(cluster), hosts=[2, 4], model="gcnii", layers=4, hidden=16)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    page = tmp_path / "plan.html"
    assert report.main(["--plan", str(path), "-o", str(page)]) == 0
    text = page.read_text()
    assert text.count("data:image/png;base64,") == 2
    assert "(fastest)" in text and "gcnii" in text
