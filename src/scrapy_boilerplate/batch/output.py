"""Where a batch writes its records: JSON lines (one file) or Parquet (a folder of parts).

Both are written so that a batch killed at any moment keeps what it wrote: a JSON line is
written with one ``write`` and flushed at once (a kill can tear only the last line, which
:func:`done_keys` drops); a Parquet part is written under a temporary name and renamed
when complete (a kill leaves at most a temporary file, which :func:`done_keys` removes).

In Parquet, the nested values (``blocks``, ``metadata``) are JSON strings: one flat,
fixed schema whatever the extractor and the options, which every reader of Parquet
(pandas, DuckDB, Spark, Polars) loads without a struct schema to agree on.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Protocol

OUTPUT_FORMATS = ("jsonl", "parquet")

#: The Parquet columns, in order, with their Arrow type names.
PARQUET_COLUMNS = (
    ("id", "string"),
    ("source", "string"),
    ("url", "string"),
    ("main_text", "string"),
    ("extractor", "string"),
    ("reason", "string"),
    ("language", "string"),
    ("page_type", "string"),
    ("page_type_probability", "float64"),
    ("quality", "float64"),
    ("skipped", "bool_"),
    ("blocks", "string"),
    ("metadata", "string"),
    ("markdown", "string"),
    ("main_html", "string"),
    ("detail", "string"),
)
#: Parquet fields that hold JSON text (nested values).
PARQUET_JSON = ("blocks", "metadata")
_PART = re.compile(r"^part-(\d+)\.parquet$")
#: One encoder for every record: records are trees of plain values, never cyclic, so the
#: check for cycles is skipped (the text is byte for byte ``json.dumps``'s).
_JSON = json.JSONEncoder(ensure_ascii=False, check_circular=False)


def encode(record: dict[str, Any], fmt: str) -> Any:
    """``record`` ready for the writer of ``fmt`` (done in the worker, off the writer's
    process): a JSON line's bytes, or a Parquet row with the nested values as JSON."""
    if fmt == "jsonl":
        return (_JSON.encode(record) + "\n").encode("utf-8", "surrogatepass")
    row = {name: record.get(name) for name, _ in PARQUET_COLUMNS}
    row["skipped"] = bool(record.get("skipped", False))
    for name in PARQUET_JSON:
        if row[name] is not None:
            row[name] = _JSON.encode(row[name])
    return row


class Writer(Protocol):
    """What a batch writes encoded records (:func:`encode`) with."""

    def write(self, encoded: Any) -> None: ...

    def write_many(self, encoded: list[Any]) -> None: ...

    def close(self) -> None: ...


class JsonlWriter:
    """Appends JSON lines to one file, each batch of lines (:meth:`write_many`: the records
    of one task) with one ``write`` and flushed at once."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("ab")

    def write(self, encoded: Any) -> None:
        self._file.write(encoded)
        self._file.flush()

    def write_many(self, encoded: list[Any]) -> None:
        """Several lines with one ``write`` (a kill can tear only the last of them)."""
        if encoded:
            self.write(b"".join(encoded))

    def close(self) -> None:
        self._file.close()


class ParquetWriter:
    """Writes Parquet parts (``part-00000.parquet``...) of ``part_rows`` rows into a folder,
    each complete before it gets its name; the last, shorter part at :meth:`close`."""

    def __init__(self, folder: Path, part_rows: int = 1000) -> None:
        import pyarrow as pa

        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.part_rows = max(1, part_rows)
        self.schema = pa.schema([(name, getattr(pa, kind)()) for name, kind in PARQUET_COLUMNS])
        self._rows: list[dict[str, Any]] = []
        numbers = [int(m.group(1)) for m in map(_PART.match, os.listdir(folder)) if m]
        self._next = max(numbers, default=-1) + 1

    def write(self, encoded: Any) -> None:
        self._rows.append(encoded)
        if len(self._rows) >= self.part_rows:
            self._flush()

    def write_many(self, encoded: list[Any]) -> None:
        """Several rows, as many :meth:`write` calls."""
        for row in encoded:
            self.write(row)

    def _flush(self) -> None:
        if not self._rows:
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist(self._rows, schema=self.schema)
        final = self.folder / f"part-{self._next:05d}.parquet"
        temporary = final.with_name(final.name + ".tmp")
        pq.write_table(table, temporary)
        os.replace(temporary, final)
        self._next += 1
        self._rows = []

    def close(self) -> None:
        self._flush()


def open_writer(path: Path, fmt: str, part_rows: int = 1000) -> Writer:
    """The writer of ``fmt`` (:data:`OUTPUT_FORMATS`) for ``path``."""
    if fmt == "parquet":
        return ParquetWriter(path, part_rows)
    return JsonlWriter(path)


def has_output(path: Path, fmt: str) -> bool:
    """Whether ``path`` already holds records of ``fmt`` (a batch will not write over them
    unless told to resume or overwrite)."""
    if fmt == "parquet":
        return path.is_dir() and any(_PART.match(name) for name in os.listdir(path))
    return path.is_file() and path.stat().st_size > 0


def clear(path: Path, fmt: str) -> None:
    """Remove what a batch wrote at ``path`` (``--overwrite``): the JSON lines file, or the
    Parquet parts (nothing else in their folder)."""
    if fmt == "parquet":
        if path.is_dir():
            for name in os.listdir(path):
                if _PART.match(name) or name.endswith(".parquet.tmp"):
                    (path / name).unlink()
    elif path.is_file():
        path.unlink()


def done_keys(path: Path, fmt: str) -> set[tuple[str, str]]:
    """The ``(source, id)`` of every record already in ``path``, for ``--resume``.

    A JSON lines file whose last line is torn (no newline at its end, or not JSON: a batch
    killed while writing it) is cut back to its last whole line; Parquet parts left
    unfinished (``.parquet.tmp``) are removed.
    """
    keys: set[tuple[str, str]] = set()
    if fmt == "parquet":
        if not path.is_dir():
            return keys
        import pyarrow.parquet as pq

        for name in sorted(os.listdir(path)):
            if name.endswith(".parquet.tmp"):
                (path / name).unlink()
            elif _PART.match(name):
                table = pq.read_table(path / name, columns=["source", "id"])
                pairs = zip(table["source"].to_pylist(), table["id"].to_pylist(), strict=True)
                keys.update(pairs)
        return keys
    if not path.is_file():
        return keys
    good = 0  # the byte offset after the last whole record
    with path.open("rb") as f:
        offset = 0
        for line in f:
            end = offset + len(line)
            try:
                record = json.loads(line) if line.endswith(b"\n") else None
            except ValueError:
                record = None
            if isinstance(record, dict):
                keys.add((str(record.get("source")), str(record.get("id"))))
                good = end
            elif not line.strip():
                good = end
            offset = end
    if good < path.stat().st_size:
        with path.open("r+b") as f:
            f.truncate(good)
    return keys
