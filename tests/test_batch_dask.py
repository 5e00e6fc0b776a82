"""examples/batch_dask.py on a real distributed.LocalCluster (threads, no mock): one task per
WARC file writes the same records as the one-machine batch, and a second run adds none."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from batch_fixtures import page, warc_record, write_warc
from scrapy_boilerplate.batch import BatchOptions, run_batch

distributed = pytest.importorskip("distributed")

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "batch_dask.py"


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("batch_dask_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _records(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    return sorted(rows, key=lambda r: r["id"])


def test_dask_cluster_writes_the_batch_records(tmp_path: Path) -> None:
    example = _example()
    warcs = []
    for n in range(3):
        warc = tmp_path / f"crawl-{n}.warc.gz"
        recs = [warc_record(f"http://example.com/{n}/{i}", page(i).encode()) for i in range(4)]
        recs.append(warc_record(f"http://example.com/{n}/x", b"<p>x</p>", status="500 Error"))
        write_warc(warc, recs)
        warcs.append(str(warc))
    options = BatchOptions(extractor="justext", markdown=True)
    out_dir = tmp_path / "out"
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        summary = example.extract_warcs(client, warcs, out_dir, options)
        again = example.extract_warcs(client, warcs, out_dir, options)
    assert summary["records"] == 15 and summary["extracted"] == 12
    assert summary["skipped"] == {"http-status": 3}
    assert again["already_done"] == 12 and again["extracted"] == 0  # resumed: nothing twice
    for warc in warcs:
        local = tmp_path / f"{Path(warc).name}.local.jsonl"
        run_batch([warc], local, options, workers=0)
        assert _records(example.output_path(warc, out_dir)) == _records(local)
