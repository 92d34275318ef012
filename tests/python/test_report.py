"""python3 -m loom.report: an HTML page with every figure for one run or several side by side,
and (where Debian's chromium is installed) a real browser renders it."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import loom_cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_report(*args):
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, "-m", "loom.report", *args], check=True, capture_output=True, text=True, env=env
    )


@pytest.fixture(scope="module")
def runs(sbm, tmp_path_factory):
    d = tmp_path_factory.mktemp("runs")
    for name, extra in (("sage", []), ("gcn", ["--model", "gcn"])):
        loom_cli(
            "train",
            sbm,
            "--layers",
            "2",
            "--fanouts",
            "10,5",
            "--batch-size",
            "256",
            "--epochs",
            "3",
            "--metrics",
            str(d / f"{name}.jsonl"),
            *extra,
        )
    return d


def test_report_has_every_figure(runs, tmp_path):
    out = tmp_path / "report.html"
    run_report(f"SAGE={runs / 'sage.jsonl'}", f"GCN={runs / 'gcn.jsonl'}", "-o", str(out), "--title", "two runs")
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "two runs" in page
    figures = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,', page)
    assert {"Loss per epoch", "Accuracy per epoch", "Epoch time by phase", "Where feature rows came from"} <= set(
        figures
    )
    assert "SAGE" in page and "GCN" in page
    assert "http" not in page.replace("http-equiv", "")  # self-contained: nothing fetched


def test_report_rejects_a_file_that_is_not_metrics(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"epoch": 1}\nnot json\n')
    result = subprocess.run(
        [sys.executable, "-m", "loom.report", str(bad), "-o", str(tmp_path / "r.html")], capture_output=True, text=True
    )
    assert result.returncode != 0 and f"{bad}:2: not a JSON record" in result.stderr
    assert not (tmp_path / "r.html").exists()


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_chromium_renders_the_report(runs, tmp_path):
    out, png = tmp_path / "report.html", tmp_path / "report.png"
    run_report(str(runs / "sage.jsonl"), "-o", str(out))
    # The browser is not what is tested: it runs without a sanitizer runtime the suite may preload
    # (scripts/sanitize), under which it hangs.
    browser_env = {name: value for name, value in os.environ.items() if name != "LD_PRELOAD"}
    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            f"--screenshot={png}",
            "--window-size=1200,2400",
            f"file://{out}",
        ],
        check=True,
        capture_output=True,
        timeout=120,
        env=browser_env,
    )
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    pixels = matplotlib.image.imread(str(png))[:, :, :3]
    drawn = (pixels.min(axis=2) < 0.9).mean()  # share of pixels that are not (near) white
    assert drawn > 0.03, f"the rendered page is nearly blank ({drawn:.1%} drawn)"
    # Every figure was drawn by the browser: each band of the page where a figure sits has ink.
    rows_with_ink = (pixels.min(axis=2) < 0.9).any(axis=1)
    assert rows_with_ink[: len(rows_with_ink) // 2].mean() > 0.3 and rows_with_ink[len(rows_with_ink) // 2 :].any()
