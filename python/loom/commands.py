"""The `loom` commands that make and reshape stores, from Python, run in this process by the CLI's
own parser (loom.run): the same options, defaults and error messages as on the command line.
Keyword options become long options: feat_dim=16 -> --feat-dim 16, overwrite=True -> --overwrite,
a list -> comma-separated values.

    g = loom.generate("sbm", "g", nodes=1000, classes=4, avg_degree=10, feat_dim=16)
    cora = loom.import_graph("ogb", "../shared/data/graphs/cora", "cora", split="planetoid")
    parts = loom.partition("g", "g-4", k=4, method="metis")
    plan = loom.plan("g-4", cluster="configs/clusters/g5.8xlarge.toml", hosts=[2, 4], config="run.toml")
"""
import json
import os
import tempfile

from . import _loom


def options_to_arguments(options):
    """["--name", "value", ...] from keyword options (True: a flag; False or None: left out)."""
    args = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


def run(*args, option_names="cli"):
    """Runs `loom ARGS...` in this process, any number of times (MPI starts once and ends at
    exit); raises loom.Error with the CLI's message when it fails (options named --like-this, or
    like_this with option_names="python")."""
    status = _loom.run([str(a) for a in args], option_names)
    if status != 0:
        raise _loom.Error(f"loom {' '.join(str(a) for a in args)}: exit status {status} (see the log above)")


def generate(kind, output, **options):
    """`loom generate KIND -o OUTPUT ...` (kind: sbm or rmat); returns the new GraphStore."""
    run("generate", kind, "-o", output, *options_to_arguments(options), option_names="python")
    return _loom.GraphStore(output)


def import_graph(kind, source, output, **options):
    """`loom import KIND SOURCE -o OUTPUT ...` (kind: ogb, mag240m, edgelist, npy; fashion-mnist takes no
    SOURCE: pass source=None); returns the new GraphStore."""
    args = ["import", kind] + ([source] if source is not None else []) + ["-o", output]
    run(*args, *options_to_arguments(options), option_names="python")
    return _loom.GraphStore(output)


def partition(store, output, k, **options):
    """`loom partition STORE -k K -o OUTPUT ...` (method="metis" by default); returns the
    PartitionedStore."""
    run("partition", store, "-k", k, "-o", output, *options_to_arguments(options), option_names="python")
    return _loom.PartitionedStore(output)


def plan(store=None, cluster=None, hosts=(2, 4, 8), **options):
    """`loom plan [STORE] --cluster CLUSTER --hosts ...` (the options of `loom train` and of `loom
    plan`, e.g. config="run.toml", shape="nodes=111M,...", alphas=[0.05, 0.2]); returns the plan as
    the dict `loom plan --json` writes: per host count, each regime's predicted epoch (phases,
    bytes per channel, memory per host) and the fastest that fits. The table goes to stdout."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "plan.json")
        args = ["plan"] + ([store] if store is not None else [])
        args += ["--cluster", cluster, "--hosts", ",".join(str(k) for k in hosts), "--json", path]
        run(*args, *options_to_arguments(options), option_names="python")
        with open(path) as f:
            return json.load(f)


def plan_fullgraph(store, cluster, hosts=(2, 4), **options):
    """`loom plan fullgraph STORE --cluster CLUSTER --hosts ...` (the options of `loom fullgraph`,
    e.g. model="gcnii", layers=32, modes=["graph", "pipe", "hybrid"], ways=2); returns the dict
    `--json` writes: per host count, each mode's predicted epoch (compute, exchange, bubble,
    all-reduce), bytes per channel, and the fastest mode. The table goes to stdout."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "plan.json")
        args = ["plan", "fullgraph", store, "--cluster", cluster, "--hosts", ",".join(str(k) for k in hosts)]
        run(*args, "--json", path, *options_to_arguments(options), option_names="python")
        with open(path) as f:
            return json.load(f)


def calibrate_cluster(output, **options):
    """`loom plan calibrate -o OUTPUT ...`: measures this host's cluster profile into OUTPUT (e.g.
    net_bandwidth="25Gbit"); returns OUTPUT."""
    run("plan", "calibrate", "-o", output, *options_to_arguments(options), option_names="python")
    return output
