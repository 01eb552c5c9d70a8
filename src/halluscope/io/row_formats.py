"""One table of rows written as Parquet, CSV or JSON lines (chosen, or read off the extension).

>>> row_format("labels.csv"), row_format("labels.jsonl"), row_format("x.parquet", "jsonl")
('csv', 'jsonl', 'jsonl')
>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.csv"
>>> write_rows(path, [{"word": "cat", "subtype": None, "excluded": False}],
...            ("word", "subtype", "excluded"))
'csv'
>>> path.read_text()
'word,subtype,excluded\\ncat,,false\\n'

CSV cells: empty for null, `true`/`false` for booleans (as JSON and Parquet readers expect),
everything else as `str`. Every file is written atomically (`io.atomic`).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Mapping, Sequence

from halluscope.errors import ConfigError

ROW_FORMATS: tuple[str, ...] = ("parquet", "csv", "jsonl")
_EXTENSIONS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".jsonl": "jsonl",
               ".ndjson": "jsonl"}


def row_format(path: str | Path, explicit: str | None = None) -> str:
    """`explicit` if given, else the format the file extension names (ConfigError otherwise).

    >>> row_format("out.txt")
    Traceback (most recent call last):
    ...
    halluscope.errors.ConfigError: cannot tell the output format of out.txt from its extension: pass --format parquet, csv or jsonl
    """
    if explicit is not None:
        if explicit not in ROW_FORMATS:
            raise ConfigError(f"unknown format {explicit!r}: one of {', '.join(ROW_FORMATS)}")
        return explicit
    found = _EXTENSIONS.get(Path(path).suffix.lower())
    if found is None:
        raise ConfigError(f"cannot tell the output format of {path} from its extension: pass "
                          f"--format {', '.join(ROW_FORMATS[:-1])} or {ROW_FORMATS[-1]}")
    return found


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def write_rows(path: str | Path, rows: Sequence[Mapping[str, Any]], columns: Sequence[str],
               fmt: str | None = None) -> str:
    """Write `rows` (their `columns`, in that order) to `path` in `fmt`; returns the format."""
    from halluscope.io.atomic import (uniform_image_ids, write_jsonl_atomic,
                                      write_parquet_atomic, write_text_atomic)

    fmt = row_format(path, fmt)
    ordered = [{c: row.get(c) for c in columns} for row in rows]
    if fmt == "parquet":
        if ordered:
            write_parquet_atomic(path, uniform_image_ids(ordered))
        else:  # still a valid, empty table with the documented columns
            import pyarrow as pa

            write_parquet_atomic(path, [], schema=pa.schema([(c, pa.string()) for c in columns]))
    elif fmt == "jsonl":
        write_jsonl_atomic(path, ordered)
    else:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([[_csv_cell(row[c]) for c in columns] for row in ordered])
        write_text_atomic(path, buffer.getvalue())
    return fmt
