"""`loom import` reads every published layout of write_layouts.py into the same store: OGB's CSV
layout, its binary layout (np.savez and np.savez_compressed, CSV splits and a split_dict.pt of
tensors) and MAG240M's (features copied or mapped, a split_dict.pt of numpy arrays); the stores'
topology, labels, splits and features are identical. A mapped store trains, and partitioning
keeps node_year, row by row. Unpublished labels
(MAG240M's test-dev) leave an empty test split. A truncated or damaged archive is an error naming
it, and leaves no store behind.
Usage: import_layouts_test.py LOOM   (exit 77, skipped, without numpy or torch)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch  # noqa: F401  (write_layouts saves split_dict.pt with it)
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import write_layouts  # noqa: E402

LOOM = sys.argv[1]
ARRAYS = ["indptr", "indices", "label", "train_idx", "valid_idx", "test_idx"]
TRAIN_ONE_EPOCH = [
    "--layers",
    "2",
    "--fanouts",
    "5,5",
    "--hidden",
    "16",
    "--epochs",
    "1",
    "--threads",
    "1",
    "--eval-every",
    "0",
]


def loom(*args, expect_ok=True, log_level="warn"):
    run = subprocess.run([LOOM, "--log-level", log_level, *args], capture_output=True, text=True)
    if expect_ok and run.returncode != 0:
        sys.exit(f"loom {' '.join(args)} failed:\n{run.stderr}")
    return run


def load(store, name):
    return np.load(os.path.join(store, name + ".npy"))


def same(a, b, what):
    if a.shape != b.shape or not np.array_equal(a, b):
        sys.exit(f"{what}: differs ({a.shape} vs {b.shape})")


def main():
    work = tempfile.mkdtemp(prefix="loom-layouts-")
    try:
        write_layouts.main_into(work)
        stores = {}
        for name in ("ogb-csv", "ogb-stored", "ogb-deflated"):
            stores[name] = os.path.join(work, name + ".store")
            loom("import", "ogb", os.path.join(work, name), "-o", stores[name])
        stores["mag240m-copy"] = os.path.join(work, "mag240m-copy.store")
        loom("import", "mag240m", os.path.join(work, "mag240m"), "-o", stores["mag240m-copy"])
        stores["mag240m-map"] = os.path.join(work, "mag240m-map.store")
        loom("import", "mag240m", os.path.join(work, "mag240m"), "-o", stores["mag240m-map"], "--features", "map")

        reference = stores["ogb-csv"]
        feat = load(reference, "feat")
        for name, store in stores.items():
            loom("check", store)
            for array in ARRAYS:
                same(load(store, array), load(reference, array), f"{name}: {array}.npy")
            meta = json.load(open(os.path.join(store, "meta.json")))
            if name == "mag240m-map":
                mapped = os.path.join(work, "mag240m", "processed", "paper", "node_feat.npy")
                if meta.get("feat_from") != os.path.abspath(mapped) or os.path.exists(os.path.join(store, "feat.npy")):
                    sys.exit(f"{name}: features not mapped from {mapped}: {meta.get('feat_from')}")
                same(np.load(mapped).astype(np.float32), feat, f"{name}: mapped features")
            else:
                same(load(store, "feat"), feat, f"{name}: feat.npy")
            if name != "ogb-csv":
                same(
                    load(store, "node_year").ravel(),
                    load(stores["ogb-stored"], "node_year").ravel(),
                    f"{name}: node_year",
                )
        loom("train", stores["mag240m-map"], *TRAIN_ONE_EPOCH, "--quiet")

        # Partitioning carries node_year into the parts, each row's own year (orig_id: its OGB id).
        parts = os.path.join(work, "ogb-stored.parts")
        loom("partition", stores["ogb-stored"], "-k", "2", "--method", "metis", "-o", parts)
        years = load(stores["ogb-stored"], "node_year").ravel()
        for p in range(2):
            part = os.path.join(parts, f"part-{p}")
            same(load(part, "node_year").ravel(), years[load(part, "orig_id")], f"part {p}: node_year")
            if "node_year" not in json.load(open(os.path.join(part, "meta.json")))["provenance"].get("node_arrays", []):
                sys.exit(f"part {p}: node_year not named in its provenance's node_arrays")

        # MAG240M's test-dev labels are not public: its nodes leave the test split, which stays
        # empty, and training reports no test accuracy rather than a wrong one.
        hidden = write_layouts.graph(200, 7)
        hidden["label"][hidden["test"]] = np.nan
        write_layouts.write_mag240m(os.path.join(work, "mag240m-hidden"), hidden)
        store = os.path.join(work, "mag240m-hidden.store")
        loom("import", "mag240m", os.path.join(work, "mag240m-hidden"), "-o", store, "--features", "map")
        same(load(store, "test_idx"), np.zeros(0, dtype=np.int64), "hidden test-dev: test_idx.npy")
        run = loom("train", store, *TRAIN_ONE_EPOCH, log_level="info")
        if "test accuracy nan" not in run.stderr + run.stdout:
            sys.exit(f"an empty test split is not reported as nan:\n{run.stderr}")

        # A truncated archive and a damaged byte: errors naming data.npz, no store left behind.
        for damage in ("truncate", "flip"):
            broken = os.path.join(work, "broken-" + damage)
            shutil.copytree(os.path.join(work, "ogb-stored"), broken)
            path = os.path.join(broken, "raw", "data.npz")
            size = os.path.getsize(path)
            if damage == "truncate":
                os.truncate(path, size // 2)
            else:
                with open(path, "r+b") as f:  # a byte inside edge_index's values (stored: no compression)
                    f.seek(400)
                    byte = f.read(1)
                    f.seek(400)
                    f.write(bytes([byte[0] ^ 0x01]))
            out = os.path.join(work, "broken-" + damage + ".store")
            run = loom("import", "ogb", broken, "-o", out, expect_ok=False)
            if run.returncode == 0 or "data.npz" not in run.stderr or os.path.exists(out):
                sys.exit(f"{damage}d data.npz: exit {run.returncode}, store left: {os.path.exists(out)}\n{run.stderr}")
            if damage == "flip" and "CRC-32" not in run.stderr:
                sys.exit(f"a flipped byte is not reported as a CRC mismatch:\n{run.stderr}")
        print("every layout imports to the same store")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
