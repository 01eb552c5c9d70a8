"""Model outputs written by other evaluation harnesses, read into one record type.

>>> import json, tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "20250101_samples_pope_adv.jsonl"
>>> line = {"doc_id": 0, "target": "yes", "filtered_resps": " Yes",
...         "pope_accuracy": {"question_id": "7", "score": 1.0, "prediction": "yes"},
...         "doc_hash": "ab12", "input": "Is there a dog?"}
>>> _ = p.write_text(json.dumps(line) + "\\n")
>>> r = read_harness(p)[0]
>>> r.format, r.text, r.get("question_id"), r.line
('lmms-eval', ' Yes', '7', 1)

`read_harness(path, input_format)` is the one entry point (AMBER, POPE, HallusionBench and the
caption commands all call it); `detect_input_format(path)` says which layout a file has.
Layouts, as their writers produce them:

- `lmms-eval`: the `--log_samples` file `<date>_samples_<task>.jsonl`, one JSON object per doc:
  `doc_id`, `target`, `filtered_resps` (the generated text; since lmms-eval 0.4 flattened to a
  string when there is one request per doc, a list otherwise), `resps` (dropped when equal),
  `input`, `doc_hash`, `token_counts`, and one entry per metric holding what the task's
  `process_results` returned (POPE's carry `question_id`, HallusionBench's every field of the
  question, COCO captioning's `image_id`). Releases before 0.4 also kept the `doc` itself. The
  record's `fields` are the doc's and the metric entries' fields together.
- `vlmevalkit`: the prediction file `<model>_<dataset>.{xlsx,tsv,json}` (`PRED_FORMAT`): the
  dataset's TSV columns (`index`, `question`, `answer`, ...; the base64 `image` column removed)
  plus `prediction`. TSV is written with every cell quoted, JSON as an array of row objects.
  XLSX (VLMEvalKit's default) is read with openpyxl: the first sheet, a header row, then one
  row per item, every cell read as text as in the TSV; pickles are never read.
- `jsonl`: halluscope's own JSON lines (or a JSON array of the same objects); the text is the
  first of `text_fields` present.

Every malformed line is an `InputError` naming file and line (a TSV's first data row is line 2,
after the header; a JSON array's item n is reported as `item n`).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from halluscope.errors import InputError
from halluscope.io.jsonl import read_json, read_jsonl

INPUT_FORMATS = ("auto", "jsonl", "lmms-eval", "vlmevalkit")
DEFAULT_TEXT_FIELDS = ("text", "caption", "model_prediction", "prediction")
# lmms-eval entries that are bookkeeping, not a metric's copy of the doc.
_LMMS_STRUCTURAL = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps",
                              "token_counts", "doc_hash", "prompt_hash", "target_hash", "input",
                              "input_media", "filter", "metrics"})
_PICKLE_SUFFIXES = frozenset({".pkl", ".pickle", ".joblib"})


@dataclass(frozen=True)
class HarnessRecord:
    """One model output and what the harness kept about its item.

    >>> r = HarnessRecord("No", {"index": "3", "category": None}, 2, "vlmevalkit")
    >>> r.get("category", "index")
    '3'
    """

    text: str | None
    fields: dict[str, Any] = field(default_factory=dict)
    line: int = 0
    format: str = "jsonl"

    def get(self, *keys: str) -> Any:
        """The first of `keys` present with a value (None, '' and NaN count as absent)."""
        for key in keys:
            value = self.fields.get(key)
            if value is None or value == "" or (isinstance(value, float) and value != value):
                continue
            return value
        return None


def detect_input_format(path: str | Path) -> str:
    """`lmms-eval`, `vlmevalkit` or `jsonl`, from the suffix and the first record; an
    `InputError` when the file could be more than one of them.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "m_POPE.tsv").write_text('"index"\\t"prediction"\\n"1"\\t"Yes"\\n')
    >>> _ = (d / "own.jsonl").write_text('{"question_id": 1, "text": "Yes"}\\n')
    >>> detect_input_format(d / "m_POPE.tsv"), detect_input_format(d / "own.jsonl")
    ('vlmevalkit', 'jsonl')
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in _PICKLE_SUFFIXES:
        raise InputError("pickle files are never read (loading one runs arbitrary code); "
                         "export the predictions as TSV or JSON", path=p)
    if suffix in (".tsv", ".xlsx"):
        return "vlmevalkit"
    if not p.is_file():
        raise InputError("file not found", path=p)
    if suffix == ".json" and _is_json_array(p):
        data = read_json(p)
        if data and isinstance(data[0], dict) and "prediction" in data[0] and "index" in data[0]:
            return "vlmevalkit"
        return "jsonl"
    # JSON lines (whatever the suffix: POPE's own files are JSON lines named .json).
    # A bad line is not the format's business: the reader reports it, or skips it (--skip-bad).
    for _, obj in read_jsonl(p, skip_bad=True):
        if "doc_id" in obj and ("filtered_resps" in obj or "resps" in obj):
            return "lmms-eval"
        return "jsonl"
    return "jsonl"


def _is_json_array(path: Path) -> bool:
    """Whether the file's first non-blank character opens an array (not JSON lines)."""
    with path.open("rb") as handle:
        head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"[")


def read_harness(path: str | Path, input_format: str = "auto",
                 text_fields: Sequence[str] = DEFAULT_TEXT_FIELDS) -> list[HarnessRecord]:
    """Every record of a harness output file, in file order (see the module docstring).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "m_HallusionBench.json"
    >>> _ = p.write_text('[{"index": "VD_map_1_0_0_0", "prediction": "No", "answer": "No"}]')
    >>> r = read_harness(p)[0]; r.text, r.fields["index"], r.line
    ('No', 'VD_map_1_0_0_0', 1)
    """
    if input_format not in INPUT_FORMATS:
        raise InputError(f"unknown input format {input_format!r}; one of "
                         f"{', '.join(INPUT_FORMATS)}", path=path)
    p = Path(path)
    fmt = detect_input_format(p) if input_format == "auto" else input_format
    if p.suffix.lower() in _PICKLE_SUFFIXES:
        detect_input_format(p)  # raises
    if fmt == "lmms-eval":
        return [_lmms_record(obj, p, line) for line, obj in read_jsonl(p)]
    if fmt == "vlmevalkit":
        return _vlmevalkit_records(p)
    return _own_records(p, text_fields)


def _text(value: Any, path: Path, line: int, key: str) -> str | None:
    """A response: a string, or a (nested) list whose first string is the response."""
    while isinstance(value, list):
        if not value:
            return None
        value = value[0]
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(f"field {key!r} must hold the generated text, got "
                         f"{type(value).__name__}", path=path, line=line)
    return value


def _lmms_record(obj: dict[str, Any], path: Path, line: int) -> HarnessRecord:
    if "doc_id" not in obj:
        raise InputError("missing field 'doc_id' (not an lmms-eval --log_samples line)",
                         path=path, line=line)
    key = "filtered_resps" if "filtered_resps" in obj else "resps"
    if key not in obj:
        raise InputError("missing field 'filtered_resps' (not an lmms-eval --log_samples line)",
                         path=path, line=line)
    fields: dict[str, Any] = {}
    doc = obj.get("doc")
    if isinstance(doc, dict):
        fields.update(doc)
    # Each metric entry is what process_results returned: usually a copy of the doc's ids.
    for name, value in obj.items():
        if name not in _LMMS_STRUCTURAL and isinstance(value, dict):
            for k, v in value.items():
                fields.setdefault(k, v)
    fields.setdefault("doc_id", obj["doc_id"])
    if "target" in obj:
        fields.setdefault("target", obj["target"])
    return HarnessRecord(_text(obj[key], path, line, key), fields, line, "lmms-eval")


def _vlmevalkit_records(path: Path) -> list[HarnessRecord]:
    suffix = path.suffix.lower()
    if not path.is_file():
        raise InputError("file not found", path=path)
    if suffix == ".xlsx":
        rows = _xlsx_rows(path)
    elif suffix == ".tsv":
        rows = _tsv_rows(path)
    elif suffix == ".json":
        data = read_json(path)
        if not isinstance(data, list):
            raise InputError("expected a JSON array of prediction rows", path=path)
        rows = [(i + 1, r) for i, r in enumerate(data)]
    else:
        raise InputError(f"VLMEvalKit predictions are .xlsx, .tsv or .json, not {suffix!r}",
                         path=path)
    records = []
    for line, row in rows:
        if not isinstance(row, dict):
            raise InputError("expected a JSON object", path=path, item=f"item {line}")
        where = {"line": line} if suffix != ".json" else {"item": f"item {line}"}
        for key in ("index", "prediction"):
            if key not in row:
                raise InputError(f"missing column {key!r} (not a VLMEvalKit prediction file)",
                                 path=path, **where)
        pred = row["prediction"]
        if pred is not None and not isinstance(pred, str):
            pred = str(pred)  # VLMEvalKit writes str(prediction); a JSON reader may see numbers
        fields = {k: v for k, v in row.items() if k != "prediction"}
        records.append(HarnessRecord(pred, fields, line, "vlmevalkit"))
    return records


def _cell_text(value: Any) -> str:
    """An XLSX cell as the TSV would hold it: numbers that pandas wrote as integers read back
    as integers ("3", not "3.0"), empty cells as ""."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _xlsx_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    import zipfile

    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except (OSError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise InputError(f"not a readable .xlsx file ({type(exc).__name__}: {exc})".splitlines()[0],
                         path=path) from None
    try:
        cells = book.worksheets[0].iter_rows(values_only=True)
        header = next(cells, None)
        if header is None:
            raise InputError("empty file", path=path)
        names = [_cell_text(h) for h in header]
        rows = []
        for line, values in enumerate(cells, start=2):  # the sheet's row number
            texts = [_cell_text(v) for v in values]
            if not any(t.strip() for t in texts):
                continue
            rows.append((line, dict(zip(names, texts))))
    finally:
        book.close()
    return rows


def _tsv_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})", path=path) from None
    # VLMEvalKit writes with csv.QUOTE_ALL: cells may hold tabs and newlines inside quotes.
    reader = csv.reader(text.splitlines(keepends=True), delimiter="\t")
    try:
        header = next(reader)
    except StopIteration:
        raise InputError("empty file", path=path) from None
    rows = []
    for cells in reader:
        line = reader.line_num
        if not cells or not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise InputError(f"{len(cells)} cells, the header has {len(header)}", path=path,
                             line=line)
        rows.append((line, dict(zip(header, cells))))
    return rows


def _own_records(path: Path, text_fields: Sequence[str]) -> list[HarnessRecord]:
    if path.is_file() and _is_json_array(path):
        data = read_json(path)
        if not isinstance(data, list):
            raise InputError("expected a JSON array of records", path=path)
        items = list(enumerate(data, start=1))
    else:
        items = list(read_jsonl(path))
    records = []
    for line, obj in items:
        if not isinstance(obj, dict):
            raise InputError("expected a JSON object", path=path, item=f"item {line}")
        key = next((k for k in text_fields if k in obj), None)
        if key is None:
            raise InputError(f"missing field {text_fields[0]!r}", path=path, line=line)
        records.append(HarnessRecord(_text(obj[key], path, line, key),
                                     {k: v for k, v in obj.items() if k != key}, line, "jsonl"))
    return records
