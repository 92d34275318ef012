"""Loom from Python. `python3 -m loom.report RUN.jsonl ... -o report.html` draws runs' metrics."""
