"""Quality against speed: one panel per dataset, F1 over median ms/page (log scale).

The quality axis is the text F1 where the dataset has gold text, else the snippet F1.
matplotlib is imported lazily with the Agg backend; without it the chart is skipped.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any


def _points(
    extractors: dict[str, dict[str, Any]],
) -> tuple[str, list[tuple[str, float, float, bool]]]:
    metric = "text" if any("text" in e["summary"] for e in extractors.values()) else "snippets"
    points = []
    for name, info in extractors.items():
        s = info["summary"]
        f1 = s.get(metric, {}).get("f1")
        ms = s.get("median_ms")
        if f1 is not None and ms:
            points.append((name, ms, f1, bool(info.get("ours"))))
    return metric, points


def draw(results: dict[str, Any], path: Path) -> Path | None:
    """Write the chart to ``path``; None (with a message on stdout) if it cannot be drawn."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, NullFormatter
    except ImportError:
        print("matplotlib is not installed: no chart (pip install -e '.[bench]')")
        return None
    datasets = results["datasets"]
    if not datasets:
        return None
    cols = min(3, len(datasets))
    rows = math.ceil(len(datasets) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.2 * rows), squeeze=False)
    for ax, (name, ds) in zip(axes.flat, datasets.items(), strict=False):
        metric, points = _points(ds["extractors"])
        for i, (label, ms, f1, ours) in enumerate(points):
            ax.scatter(ms, f1, marker="o" if ours else "s", color="C3" if ours else "C0")
            offset = (4, 4) if i % 2 == 0 else (4, -10)
            ax.annotate(label, (ms, f1), textcoords="offset points", xytext=offset, fontsize=8)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        if points:
            xs = [p[1] for p in points]
            ys = [p[2] for p in points]
            ax.set_xlim(min(xs) / 1.6, max(xs) * 2.5)
            ax.set_ylim(max(0.0, min(ys) - 0.05), min(1.0, max(ys) + 0.03) + 0.01)
        ax.set_title(f"{name} ({ds['pages']} pages)", fontsize=10)
        ax.set_xlabel("median ms / page (log)")
        ax.set_ylabel(f"{'text' if metric == 'text' else 'snippet'} F1")
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(datasets) :]:
        ax.set_visible(False)
    fig.suptitle("Quality vs speed (red circles: ours; blue squares: peers)", fontsize=11)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
