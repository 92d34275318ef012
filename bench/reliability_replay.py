#!/usr/bin/python3
"""The replay of issue 57's bad inputs, and a sweep of every integer and floating-point option of
every command over 0, -1 and 2^40 (bench/bench_reliability.sh runs it):
    reliability_replay.py LOOM MPIRUN WORK OUT.md [DATA]
Each case runs under a time limit and an address-space limit (so that an allocation sized by input
must be refused by name, not attempted) and is classed:
    crash    a signal the case did not send, or a message that names no input but the runtime
             ("terminate called", "std::bad_alloc", "Aborted", a backtrace, a Python traceback)
    hang     ran past the time limit
    lost     a file of the case's input changed or went
    silent   status 0 where the case expects an error
    unnamed  an error whose message names none of the case's names (file, field or option)
    ok       what the case expects: an error naming one of its names, or (expect "ok") a run that
             ends by itself within the limit
The issue's cases run on Cora (when DATA holds it) and on small generated stores; the sweep on a
generated store. Writes OUT.md: the counts per class and one row per case that is not ok, then
every case of the issue with its class and the first line of its message."""
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

LOOM, MPIRUN, WORK, OUT = sys.argv[1:5]
DATA = sys.argv[5] if len(sys.argv) > 5 else ""
PYTHON = "/usr/bin/python3"
LIMIT_S, SWEEP_LIMIT_S = 120, 30
ADDRESS_SPACE = 8 << 30  # bytes; LibTorch maps ~2 GiB at start
CRASH_SIGNS = (
    "terminate called",
    "std::bad_alloc",
    "Aborted",
    "Segmentation fault",
    "core dumped",
    "Traceback (most recent call last)",
    "free(): ",
    "double free",
    "cannot create std::vector",
)
results = []


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    os.setsid()


def digest_tree(paths):
    """{file: md5} of every file under `paths` (the case's inputs)."""
    found = {}
    for path in paths:
        walk = [(path, [], [""])] if os.path.isfile(path) else os.walk(path)
        for root, _, files in walk:
            for name in files:
                full = os.path.join(root, name) if name else root
                with open(full, "rb") as f:
                    found[full] = hashlib.md5(f.read()).hexdigest()
    return found


def run(name, group, argv, expect="error", names=(), inputs=(), limit=LIMIT_S, send=None, env=None):
    """Runs argv, classes what happened, and records it. send=(when, signal): sent to the process
    group `when` seconds after the start, or once a file whose path begins with `when` exists (the
    case's own signal, not a crash)."""
    before = digest_tree(inputs)
    started = time.time()
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        preexec_fn=limit_memory,
        env=env,
    )
    own_signal = None
    try:
        if send:
            if isinstance(send[0], str):
                folder, prefix = os.path.split(send[0])
                for _ in range(3000):
                    if proc.poll() is not None or any(n.startswith(prefix) for n in os.listdir(folder)):
                        break
                    time.sleep(0.01)
            else:
                time.sleep(send[0])
            if proc.poll() is None:
                own_signal = send[1]
                os.killpg(proc.pid, own_signal)
        output, _ = proc.communicate(timeout=limit)
        hung = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        hung = True
    seconds = time.time() - started
    status = proc.returncode
    after = digest_tree(inputs)
    message = next((line for line in output.splitlines() if "error" in line or "problem" in line), "")
    if not message:
        message = output.strip().splitlines()[-1] if output.strip() else ""
    signalled = status < 0 or (status > 128 and status - 128 != own_signal and status != 2)
    if hung:
        verdict = "hang"
    elif signalled and -status != own_signal or any(sign in output for sign in CRASH_SIGNS):
        verdict = "crash"
    elif before != after:
        verdict = "lost"
    elif expect == "error" and status == 0:
        verdict = "silent"
    elif expect == "error" and names and not any(n in output for n in names):
        verdict = "unnamed"
    else:
        verdict = "ok"
    results.append(
        {
            "name": name,
            "group": group,
            "verdict": verdict,
            "status": status,
            "seconds": round(seconds, 2),
            "message": message[:300],
        }
    )
    print(f"{verdict:8} {status:4} {seconds:6.1f}s {group:8} {name}: {message[:160]}", flush=True)
    return status, output


def loom(*args):
    return [LOOM, "--log-level", "warn", *args]


def must(argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    return path


def edit_meta(store, key, value, seal=False):
    meta_path = os.path.join(store, "meta.json")
    with open(meta_path) as f:
        meta = json.load(f)
    meta[key] = value
    if seal:  # as a writer would have sealed it (format/digest.hpp): only the field's meaning can tell
        content = dict(meta)
        content.pop("meta_digest", None)
        text = json.dumps(content, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        import zlib

        meta["meta_digest"] = "crc32:%08x" % (zlib.crc32(text.encode()) & 0xFFFFFFFF)
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=2)


def write_gz(path, text):
    import gzip

    os.makedirs(os.path.dirname(path), exist_ok=True)
    with gzip.open(path, "wt") as f:
        f.write(text)


def ogb_dir(path, splits, labels="0\n1\n0\n1\n0\n1\n"):
    fresh(path)
    write_gz(f"{path}/raw/edge.csv.gz", "0,1\n1,2\n2,3\n3,4\n4,5\n5,0\n")
    write_gz(f"{path}/raw/num-node-list.csv.gz", "6\n")
    write_gz(f"{path}/raw/node-feat.csv.gz", "1\n2\n3\n4\n5\n6\n")
    write_gz(f"{path}/raw/node-label.csv.gz", labels)
    for name, ids in splits.items():
        write_gz(f"{path}/split/k/{name}.csv.gz", "".join(f"{i}\n" for i in ids))
    return path


def crashes(g, cora, w, train, np2):
    """Crashes."""
    for value in ("0", "-1"):
        run(
            f"train --eval-batch-size {value}",
            "crash",
            loom(*train, "--eval-batch-size", value),
            names=["--eval-batch-size"],
            inputs=[g],
        )
    run(
        "loom.run(train --eval-batch-size 0)",
        "crash",
        [
            PYTHON,
            "-c",
            f"import loom\ntry:\n loom.run('train', {g!r}, '--epochs', '1', '--eval-batch-size', '0')\n"
            "except loom.Error as e:\n print('error:', e); raise SystemExit(1)",
        ],
        names=["--eval-batch-size"],
        inputs=[g],
    )
    parts = fresh(f"{w}/mixed")
    must(loom("partition", g, "-k", "2", "--method", "metis", "-o", parts))
    edit_meta(f"{parts}/part-1", "num_classes", 9, seal=True)
    run(
        "mpirun -np 2 train, part-1 num_classes edited (sealed)",
        "crash",
        np2 + loom("train", parts, "--epochs", "1", "--hidden", "8", "--threads", "1"),
        names=["part-1/meta.json"],
        inputs=[parts],
    )
    for command in (
        ["check", parts],
        ["analyze", "cache", parts, "--fanouts", "5,5", "--alpha", "0.1", "--epochs", "1"],
    ):
        run(f"{command[0]} on that store", "crash", loom(*command), names=["part-1/meta.json"], inputs=[parts])


def edited_meta_json(g, cora, w, train, np2):
    """Silent: meta.json edited."""
    for key, value in (("num_classes", 40), ("directed", True), ("num_edges", 5)):
        store = fresh(f"{w}/edited-{key}")
        shutil.copytree(cora or g, store)
        edit_meta(store, key, value)
        for command in (
            ["info", store],
            ["check", store],
            train[:1] + [store] + train[2:],
            ["partition", store, "-k", "2", "-o", f"{w}/p-{key}"],
            [
                "embed",
                "deepwalk",
                store,
                "-o",
                f"{w}/e-{key}.txt",
                "--walks",
                "1",
                "--length",
                "5",
                "--dim",
                "4",
                "--epochs",
                "1",
            ],
            ["analyze", "cache", store, "--fanouts", "5,5", "--alpha", "0.1", "--epochs", "1"],
        ):
            run(
                f"{command[0]} with meta.json {key} edited",
                "silent",
                loom(*command),
                names=["meta.json"],
                inputs=[store],
            )


def changed_mapped_features(g, cora, w, train, np2):
    """Silent: a mapped MAG240M feature file changed after the import."""
    layouts = fresh(f"{w}/layouts")
    must(
        [
            PYTHON,
            os.path.join(os.path.dirname(__file__), "..", "tests", "graph", "io", "layouts", "write_layouts.py"),
            layouts,
        ]
    )
    mag = f"{layouts}/mag240m"
    must(loom("import", "mag240m", mag, "-o", fresh(f"{w}/mag-store"), "--features", "map"))
    subprocess.run(
        [
            PYTHON,
            "-c",
            "import numpy as np, sys\na = np.load(sys.argv[1], mmap_mode='r+')\na[3, 1] = np.nan\n" "a.flush()",
            f"{mag}/processed/paper/node_feat.npy",
        ],
        check=True,
    )
    run(
        "check after NaN written into a mapped node_feat.npy",
        "silent",
        loom("check", f"{w}/mag-store"),
        names=["node_feat.npy"],
        inputs=[f"{w}/mag-store"],
    )
    run(
        "partition of that store",
        "silent",
        loom("partition", f"{w}/mag-store", "-k", "2", "-o", fresh(f"{w}/mag-parts")),
        names=["node_feat.npy"],
    )


def importer_checks(g, cora, w, train, np2):
    """Silent: float16 overflow, overlapping and repeated split ids (several importers)."""
    npy = fresh(f"{w}/npy")
    os.makedirs(npy)
    subprocess.run(
        [
            PYTHON,
            "-c",
            "import numpy as np, sys\nd = sys.argv[1]\n"
            "np.save(d + '/src.npy', np.array([0, 1, 2])); np.save(d + '/dst.npy', np.array([1, 2, 3]))\n"
            "np.save(d + '/feat.npy', np.array([[1, 2], [3, 70000], [5, 6], [7, 8]], dtype=np.float32))\n"
            "np.save(d + '/label.npy', np.array([0, 1, 0, 1]))",
            npy,
        ],
        check=True,
    )
    run(
        "import npy --feat-dtype float16 (a value of 70000)",
        "silent",
        loom("import", "npy", npy, "-o", fresh(f"{w}/f16"), "--feat-dtype", "float16"),
        names=["--feat-dtype"],
        inputs=[npy],
    )
    os.remove(f"{npy}/feat.npy")
    subprocess.run(
        [
            PYTHON,
            "-c",
            "import numpy as np, sys\nd = sys.argv[1]\n"
            "np.save(d + '/train_idx.npy', np.array([0, 1])); np.save(d + '/test_idx.npy', np.array([1, 2]))",
            npy,
        ],
        check=True,
    )
    run(
        "import npy, train and test share a node",
        "silent",
        loom("import", "npy", npy, "-o", fresh(f"{w}/ov")),
        names=["test leakage"],
        inputs=[npy],
    )
    for label, splits in (
        ("train and test share a node", {"train": [0, 1], "valid": [2], "test": [3, 1]}),
        ("train and valid share a node", {"train": [0, 1], "valid": [1], "test": [3]}),
        ("a train id twice", {"train": [0, 0], "valid": [2], "test": [3]}),
    ):
        src = ogb_dir(f"{w}/ogb-{label.replace(' ', '-')}", splits)
        run(
            f"import ogb, {label}",
            "silent",
            loom("import", "ogb", src, "-o", fresh(f"{w}/o")),
            names=["test leakage"],
            inputs=[src],
        )
    run(
        "from_pyg, train and test masks share a node",
        "silent",
        [
            PYTHON,
            "-c",
            "import loom, torch, types\nn = 6\nr = torch.arange(n)\n"
            "d = types.SimpleNamespace(edge_index=torch.stack([r, (r + 1) % n]), x=torch.randn(n, 2),\n"
            " y=torch.tensor([0, 1, 0, 1, 0, 1]), num_nodes=n,\n"
            " train_mask=torch.tensor([1, 1, 0, 0, 0, 0]).bool(), test_mask=torch.tensor([0, 1, 1, 0, 0, 0]).bool())\n"
            f"try:\n loom.from_pyg(d, {w + '/pyg'!r})\nexcept loom.Error as e:\n print('error:', e); raise SystemExit(1)",
        ],
        names=["test leakage"],
    )


def edge_lists_and_options(g, cora, w, train, np2):
    """Silent: edge lists and options."""
    with open(f"{w}/garbage.txt", "w") as f:
        f.write("".join(f"{v} {v + 1}\n" for v in range(100)) + "this is garbage\n")
    run(
        "edge list with one line 'this is garbage'",
        "silent",
        loom("import", "edgelist", f"{w}/garbage.txt", "-o", fresh(f"{w}/gl")),
        names=["garbage.txt:101"],
        inputs=[f"{w}/garbage.txt"],
    )
    run(
        "import edgelist --num-nodes -5",
        "silent",
        loom("import", "edgelist", f"{w}/garbage.txt", "-o", fresh(f"{w}/gl"), "--num-nodes", "-5"),
        names=["--num-nodes"],
    )
    run("train --seed -1", "silent", loom(*train, "--seed", "-1"), names=["--seed"], inputs=[g])
    both = ogb_dir(f"{w}/both", {"train": [0], "valid": [1], "test": [2]})
    with open(f"{both}/raw/edge.csv", "w") as f:
        f.write("0,1\n")
    run(
        "raw/edge.csv beside raw/edge.csv.gz",
        "silent",
        loom("import", "ogb", both, "-o", fresh(f"{w}/b")),
        names=["edge.csv.gz"],
        inputs=[both],
    )


def checkpoints_and_logs(g, cora, w, train, np2):
    """Silent: checkpoints, metrics, decision logs."""
    ck = fresh(f"{w}/ck")
    must(
        loom(
            "train",
            g,
            "--epochs",
            "2",
            "--hidden",
            "8",
            "--threads",
            "1",
            "--quiet",
            "--checkpoint-dir",
            ck,
            "--checkpoint-every",
            "1",
            "--metrics",
            f"{w}/m.jsonl",
        )
    )
    run(
        "a second train into the same --checkpoint-dir",
        "silent",
        loom(*train, "--checkpoint-dir", ck, "--checkpoint-every", "1"),
        names=["--checkpoint-dir"],
        inputs=[ck],
    )
    with open(f"{w}/other.jsonl", "w") as f:
        f.write('{"epoch": 1, "loss": 0.5}\n')
    run(
        "--resume --metrics FILE of another run",
        "silent",
        loom(
            "train",
            g,
            "--epochs",
            "3",
            "--hidden",
            "8",
            "--threads",
            "1",
            "--quiet",
            "--checkpoint-dir",
            ck,
            "--resume",
            "--metrics",
            f"{w}/other.jsonl",
        ),
        names=["--metrics"],
        inputs=[f"{w}/other.jsonl", ck],
    )
    with open(f"{w}/decisions.jsonl", "w") as f:
        f.write("old\n")
    run(
        "--decision-log over an existing log",
        "silent",
        loom(*train, "--controller", "rules", "--prefetch", "0.2", "--decision-log", f"{w}/decisions.jsonl"),
        names=["--decision-log"],
        inputs=[f"{w}/decisions.jsonl"],
    )
    flipped = fresh(f"{w}/flipped")
    shutil.copytree(g, flipped)
    with open(f"{flipped}/feat.npy", "r+b") as f:
        f.seek(-1, 2)
        last = f.read(1)
        f.seek(-1, 2)
        f.write(bytes([last[0] ^ 0x40]))
    run(
        "loom.GraphStore of a store with a flipped byte",
        "silent",
        [
            PYTHON,
            "-c",
            f"import loom\ntry:\n loom.GraphStore({flipped!r}).features.sum()\nexcept loom.Error as e:\n"
            " print('error:', e); raise SystemExit(1)",
        ],
        names=["feat.npy"],
        inputs=[flipped],
    )


def lost_or_hung(g, cora, w, train, np2):
    """Inputs lost, reads without end, signals that left temporaries."""
    src = ogb_dir(f"{w}/own", {"train": [0], "valid": [1], "test": [2]})
    run(
        "import ogb DIR -o DIR --overwrite",
        "lost",
        loom("import", "ogb", src, "-o", src, "--overwrite"),
        names=["is the input"],
        inputs=[src],
    )
    run(
        "import edgelist /dev/zero",
        "hang",
        loom("import", "edgelist", "/dev/zero", "-o", fresh(f"{w}/z")),
        names=["/dev/zero"],
    )
    with open(f"{w}/big.txt", "w") as f:
        f.write("".join(f"{i % 200000} {(i * 7919 + 1) % 200000}\n" for i in range(2000000)))
    mkdir_old = fresh(f"{w}/big-store")
    os.makedirs(mkdir_old)
    with open(f"{mkdir_old}/keep", "w") as f:
        f.write("the old output\n")
    for sig in (signal.SIGTERM, signal.SIGINT):
        run(
            f"SIG{sig.name[3:]} during import",
            "lost",
            loom("import", "edgelist", f"{w}/big.txt", "-o", mkdir_old, "--overwrite", "--build-memory", "16M"),
            names=["stopped by"],
            inputs=[mkdir_old, f"{w}/big.txt"],
            send=(f"{mkdir_old}.tmp-", sig),
        )
    must(loom("import", "edgelist", f"{w}/big.txt", "-o", fresh(f"{w}/big-g")))
    run(
        "SIGTERM during partition",
        "lost",
        loom("partition", f"{w}/big-g", "-k", "4", "-o", fresh(f"{w}/big-p")),
        names=["stopped by"],
        inputs=[f"{w}/big-g"],
        send=(f"{w}/big-p.tmp-", signal.SIGTERM),
    )
    leftovers = [n for n in os.listdir(w) if ".tmp-" in n]
    results.append(
        {
            "name": "temporaries left by the signalled runs",
            "group": "lost",
            "verdict": "ok" if not leftovers else "lost",
            "status": 0,
            "seconds": 0,
            "message": ", ".join(leftovers) or "none",
        }
    )


def unbounded_sizes(g, cora, w, train, np2):
    """Allocations sized by input: refused by name up front."""
    with open(f"{w}/edges100.txt", "w") as f:
        f.write("".join(f"{v} {v + 1}\n" for v in range(100)))
    for label, value in (("99999999999", "99999999999"), ("1e12", "1000000000000")):
        stray = ogb_dir(f"{w}/stray-{label}", {}, labels=f"0\n1\n{value}\n1\n0\n1\n")
        run(
            f"import ogb with a stray label {label}",
            "unbound",
            loom("import", "ogb", stray, "-o", fresh(f"{w}/stray-store"), "--random-split", "0.5,0.25"),
            expect="ok",
            inputs=[stray],
            limit=30,
        )
        run(
            f"train on it (label {label})",
            "unbound",
            loom("train", f"{w}/stray-store", "--epochs", "1"),
            names=["num_classes"],
        )
    run(
        "import edgelist --num-nodes 3000000000",
        "unbound",
        loom("import", "edgelist", f"{w}/edges100.txt", "-o", fresh(f"{w}/n"), "--num-nodes", "3000000000"),
        names=["--num-nodes"],
    )
    run(
        "embed deepwalk --walks 100000000",
        "unbound",
        loom("embed", "deepwalk", g, "-o", f"{w}/w.txt", "--walks", "100000000"),
        names=["--walks"],
    )
    run(
        "train --hidden 100000000",
        "unbound",
        loom("train", g, "--epochs", "1", "--hidden", "100000000"),
        names=["--hidden"],
    )
    run(
        "import --build-memory 1",
        "unbound",
        loom("import", "edgelist", f"{w}/big.txt", "-o", fresh(f"{w}/bm"), "--build-memory", "1"),
        names=["--build-memory"],
    )


def embed_stopped_mid_epoch(g, cora, w, train, np2):
    """SIGTERM inside a long epoch of `loom embed text` in one process."""

    def word(k):  # letters only: the tokenizer keeps words, not numbers
        return "".join(chr(97 + (k // 26**p) % 26) for p in range(3))

    words = "\n".join(" ".join(word((i * 31 + j) % 5000) for j in range(200)) for i in range(60000))
    with open(f"{w}/corpus.txt", "w") as f:
        f.write(words)
    status, output = run(
        "embed text stopped by SIGTERM mid-epoch",
        "hang",
        loom(
            "embed",
            "text",
            f"{w}/corpus.txt",
            "-o",
            f"{w}/v.txt",
            "--epochs",
            "3",
            "--threads",
            "1",
            "--checkpoint-dir",
            fresh(f"{w}/eck"),
            "--min-count",
            "1",
        ),
        names=["stopped by signal"],
        send=(6.0, signal.SIGTERM),
        limit=30,
    )
    results[-1][
        "message"
    ] += f" (checkpoint: {open(f'{w}/eck/latest').read().strip() if os.path.exists(f'{w}/eck/latest') else 'none'})"


def issue_cases(g, cora):
    """The cases issue 57 lists, by its classes."""
    w = WORK
    train = ["train", g, "--epochs", "1", "--hidden", "8", "--threads", "1", "--quiet"]
    np2 = [MPIRUN, "-np", "2", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none", "-q"]
    for cases in (
        crashes,
        edited_meta_json,
        changed_mapped_features,
        importer_checks,
        edge_lists_and_options,
        checkpoints_and_logs,
        lost_or_hung,
        unbounded_sizes,
        embed_stopped_mid_epoch,
    ):
        cases(g, cora, w, train, np2)


def option_sweep(g, parts):
    """Every integer and floating-point option of the commands below over 0, -1 and 2^40."""
    w = WORK
    walks = f"-o {w}/sweep.txt --overwrite --walks 1 --length 5 --dim 8 --epochs 1".split()
    base = {
        ("train",): [g, *"--epochs 1 --hidden 8 --threads 1 --quiet --no-exact-eval".split()],
        ("fullgraph",): [parts, *"--epochs 1 --layers 2 --hidden 8 --threads 1 --quiet".split()],
        ("embed", "deepwalk"): [g, *walks],
        ("embed", "node2vec"): [g, *walks],
        ("embed", "text"): [f"{w}/sweep-corpus.txt", *f"-o {w}/sweep.txt --overwrite --dim 8 --epochs 1".split()],
        ("walk",): [g, *"--walks 1 --length 5".split()],
        ("generate", "sbm"): f"-o {w}/sweep-g --overwrite --nodes 200 --classes 2 --avg-degree 4 --feat-dim 4".split(),
        ("generate", "rmat"): f"-o {w}/sweep-r --overwrite --scale 8 --feat-dim 4 --classes 2".split(),
        ("partition",): [g, *f"-k 2 -o {w}/sweep-p --overwrite".split()],
        ("analyze", "cache"): [parts, *"--fanouts 5,5 --alpha 0.1 --epochs 1".split()],
        ("analyze", "prefetch"): [parts, *"--fanouts 5,5 --prefetch 0.2 --epochs 1".split()],
        ("import", "edgelist"): [f"{w}/sweep-edges.txt", *f"-o {w}/sweep-i --overwrite".split()],
    }
    with open(f"{WORK}/sweep-corpus.txt", "w") as f:
        f.write("the quick brown fox jumps over the lazy dog\n" * 200)
    with open(f"{WORK}/sweep-edges.txt", "w") as f:
        f.write("".join(f"{v} {(v + 1) % 50}\n" for v in range(50)))
    for command, args in base.items():
        help_text = subprocess.run([LOOM, *command, "--help"], capture_output=True, text=True).stdout
        for option, kind in re.findall(r"^\s+(--[a-z0-9-]+)(?: [A-Z]+)? (INT|UINT|FLOAT)\b", help_text, re.M):
            if option in ("--threads", "--seed", "--split-seed", "--comm-timeout"):
                continue
            trimmed = list(args)
            if option in trimmed:
                at = trimmed.index(option)
                del trimmed[at : at + 2]
            for value in ("0", "-1", "1099511627776"):
                run(
                    f"{' '.join(command)} {option} {value}",
                    "sweep",
                    loom(*command, *trimmed, option, value),
                    expect="any",
                    names=[option],
                    inputs=[g],
                    limit=SWEEP_LIMIT_S,
                )


def report():
    counts = {}
    for r in results:
        counts.setdefault(r["group"] if r["group"] == "sweep" else "issue", {}).setdefault(r["verdict"], 0)
        counts["sweep" if r["group"] == "sweep" else "issue"][r["verdict"]] += 1
    lines = [
        "# Reliability replay (issue 57)",
        "",
        f"`bench/bench_reliability.sh` on {time.strftime('%Y-%m-%d')}: {len(results)} runs of `loom`, each under a "
        f"{LIMIT_S} s limit ({SWEEP_LIMIT_S} s in the sweep) and an {ADDRESS_SPACE >> 30} GiB address-space limit; "
        "classes as `bench/reliability_replay.py` defines them.",
        "",
        "| cases | " + " | ".join(("ok", "crash", "silent", "unnamed", "hang", "lost")) + " |",
        "|---|" + "---|" * 6,
    ]
    for part, c in counts.items():
        lines.append(
            f"| {part} ({sum(c.values())}) | "
            + " | ".join(str(c.get(v, 0)) for v in ("ok", "crash", "silent", "unnamed", "hang", "lost"))
            + " |"
        )
    bad = [r for r in results if r["verdict"] != "ok"]
    lines += ["", "## Not ok", "" if bad else "None.", ""]
    if bad:
        lines += ["| case | class | status | s | message |", "|---|---|---|---|---|"]
        lines += [
            f"| `{r['name']}` | {r['verdict']} | {r['status']} | {r['seconds']} | {r['message'].replace('|', '/')} |"
            for r in bad
        ]
    lines += [
        "",
        "## The issue's cases",
        "",
        "| group | case | class | status | s | message |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['group']} | `{r['name']}` | {r['verdict']} | {r['status']} | {r['seconds']} | "
        f"{r['message'].replace('|', '/')} |"
        for r in results
        if r["group"] != "sweep"
    ]
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[:10]))


def main():
    os.makedirs(WORK, exist_ok=True)
    g = fresh(f"{WORK}/g")
    must(
        loom(
            "generate",
            "sbm",
            "-o",
            g,
            "--nodes",
            "600",
            "--classes",
            "3",
            "--avg-degree",
            "6",
            "--feat-dim",
            "8",
            "--seed",
            "1",
        )
    )
    parts = fresh(f"{WORK}/parts")
    must(loom("partition", g, "-k", "2", "--method", "metis", "-o", parts))
    cora = ""
    if DATA and os.path.isdir(f"{DATA}/graphs/cora"):
        cora = fresh(f"{WORK}/cora")
        must(loom("import", "ogb", f"{DATA}/graphs/cora", "-o", cora))
    else:
        print(f"reliability: no Cora under {DATA or '(no DATA)'}: the meta.json cases run on a generated store")
    issue_cases(g, cora)
    option_sweep(g, parts)
    report()


main()
