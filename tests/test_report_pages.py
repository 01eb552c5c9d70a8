"""The report pages as a reader gets them: `halluscope report`'s report.html and a bench run's
report.html, parsed (always) and loaded in a real headless Chromium (when one is installed:
`apt-get install chromium`; skipped otherwise).

Structure is checked with `html.parser`: every table there, no external URL, every image an
embedded PNG that decodes; the highlighted mention of each row is the caption's characters at
the mention's span, read from the captions file (not from the page code). In the browser:
no console message, the filter script ran (a button is pressed), every image loaded.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from halluscope.cli.main import app

CAPTIONS = [
    {"image_id": 1, "caption": "A dog sleeps on a sofa. There may be a cat behind it."},
    {"image_id": 2, "caption": "A poster of a horse hangs above a table with <three> cups."},
    {"image_id": 3, "caption": "No cars are on the road & a person walks a bicycle."},
]
PRESENCE = {"1": ["dog", "couch"], "2": ["dining table", "cup"], "3": ["person", "bicycle"]}


class PageParser(HTMLParser):
    """Tables (with their rows), images, links, scripts and every URL-bearing attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict] = []
        self.images: list[str] = []
        self.urls: list[str] = []
        self.rows: list[dict] = []
        self.buttons: list[str] = []
        self._row: dict | None = None
        self._cell: list[str] | None = None
        self._in_mark = False
        self._script = False
        self.scripts: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("href", "src", "action", "data"):
            if key in a and a[key] is not None:
                self.urls.append(a[key])
        if tag == "table":
            self.tables.append({"id": a.get("id"), "rows": 0})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"] += 1
            if self.tables[-1]["id"] == "mentions" and "data-class" in a:
                self._row = {"class": a["data-class"], "cells": [], "marks": []}
        elif tag == "td" and self._row is not None:
            self._cell = []
        elif tag == "mark" and self._row is not None:
            self._in_mark = True
            self._row["marks"].append("")
        elif tag == "img":
            self.images.append(a.get("src", ""))
        elif tag == "button":
            self.buttons.append(a.get("data-filter", ""))
        elif tag == "script":
            self._script = True
            if "src" in a:
                self.scripts.append("external:" + a["src"])

    def handle_endtag(self, tag):
        if tag == "td" and self._row is not None and self._cell is not None:
            self._row["cells"].append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None
        elif tag == "mark":
            self._in_mark = False
        elif tag == "script":
            self._script = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._in_mark and self._row is not None:
            self._row["marks"][-1] += data
        if self._script:
            self.scripts.append(data)


def _parse(page: str) -> PageParser:
    parser = PageParser()
    parser.feed(page)
    return parser


def _no_external_urls(parser: PageParser, page: str) -> None:
    assert all(u.startswith("data:") or u.startswith("#") for u in parser.urls), parser.urls
    assert not re.search(r"https?://", page), re.search(r".{40}https?://.{40}", page)
    assert not any(s.startswith("external:") for s in parser.scripts)
    assert "@import" not in page and "url(" not in page


def _png_ok(src: str) -> bool:
    from PIL import Image
    import io

    prefix = "data:image/png;base64,"
    if not src.startswith(prefix):
        return False
    image = Image.open(io.BytesIO(base64.b64decode(src[len(prefix):])))
    image.load()
    return image.width > 100 and image.height > 100


@pytest.fixture(scope="module")
def usage_page(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("usage_page")
    captions = root / "captions.jsonl"
    captions.write_text("".join(json.dumps(c) + "\n" for c in CAPTIONS))
    presence = root / "presence.json"
    presence.write_text(json.dumps(PRESENCE))
    result = CliRunner().invoke(app, ["report", "--captions", str(captions), "--annotations",
                                      str(presence), "--out", str(root / "out"),
                                      "--bootstrap", "50"])
    assert result.exit_code == 0, result.output
    assert "report.html" in result.output
    return root / "out" / "report.html"


def test_usage_page_structure(usage_page: Path) -> None:
    import pyarrow.parquet as pq

    page = usage_page.read_text(encoding="utf-8")
    parser = _parse(page)
    _no_external_urls(parser, page)
    # Rates, counts per class, usage and subtype, and the mentions: five tables.
    assert len(parser.tables) == 5 and parser.tables[-1]["id"] == "mentions"
    assert "usage-aware (claims only)" in page and "95% image-bootstrap" in page
    mentions = pq.read_table(usage_page.parent / "mentions.parquet").to_pylist()
    assert len(parser.rows) == len(mentions) > 0
    texts = [c["caption"] for c in CAPTIONS]
    for row, mention in zip(parser.rows, mentions):
        # The highlighted text is the caption's own characters at the mention's span.
        assert row["marks"] == [texts[mention["caption_index"]][mention["start"]:mention["end"]]]
        assert row["class"] == (mention["namebench_class"] or "other")
    by_word = {r["marks"][0]: r for r in parser.rows}
    # "may be a cat": hedged; "A poster of a horse": depictive; "No cars": negation.
    assert by_word["cat"]["class"] == "non_assertive" and "hedged" in by_word["cat"]["cells"]
    assert by_word["horse"]["class"] == "non_assertive"
    assert by_word["cars"]["class"] == "non_assertive"
    assert by_word["dog"]["class"] == "concrete"
    # Escaped, not interpreted: the caption's "<three>" and "&" come back as text.
    assert "&lt;three&gt;" in page and "&amp; a person" in page
    assert parser.buttons[0] == "all" and set(parser.buttons[1:]) <= {
        "concrete", "hallucinated", "non_assertive", "other"}
    assert parser.images == []


def test_usage_page_says_when_the_mention_table_is_cut(monkeypatch) -> None:
    from halluscope.report import usage_html

    monkeypatch.setattr(usage_html, "MAX_MENTION_ROWS", 1)
    summary = {"inputs": {}, "n_captions": 1, "n_images": 1, "n_mentions": 2,
               "n_judge_failures": 0, "counts": {"class": {}, "usage": {}, "subtype": {}},
               "usage_aware": {"hallucination_rate": None, "caption_hallucination_rate": None},
               "usage_agnostic": {"hallucination_rate": None,
                                  "caption_hallucination_rate": None}}
    mention = {"caption_index": 0, "image_id": 1, "word": "dog", "start": 2, "end": 5}
    page = usage_html.render_usage_html(summary, [mention, mention], {0: "A dog."})
    assert "Truncated: the first 1 of 2 mentions" in page
    assert _parse(page).rows.__len__() == 1


# --- the bench run page ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def bench_page(tmp_path_factory) -> Path:
    from halluscope.cli.bench import app as bench_app

    from synthetic_bench import write_synthetic

    root = tmp_path_factory.mktemp("bench_page")
    labels, signals = write_synthetic(root, n_images=60)
    out = root / "out"
    result = CliRunner().invoke(bench_app, [
        "run", "--estimate-natural-share", "--labels", str(labels), "--signals", str(signals),
        "--out", str(out), "--seeds", "1", "--budgets", "0,10,max",
        "--detectors", "nll,entropy,position,svar,vade,pas,glsim,hidden_mid"])
    assert result.exit_code == 0, result.output
    return out / "report.html"


def test_bench_page_structure(bench_page: Path) -> None:
    page = bench_page.read_text(encoding="utf-8")
    parser = _parse(page)
    _no_external_urls(parser, page)
    results = json.loads((bench_page.parent / "results.json").read_text())
    assert len(parser.tables) >= len(results["tables"])
    assert len(parser.images) == 4 and all(_png_ok(src) for src in parser.images)
    # Titled by the model the signals came from when the labels do not name one.
    title = re.search(r"<title>(.*?)</title>", page).group(1)
    assert title == f"NAME-Bench detector run: {results['summary']['model']}"
    timings = json.loads((bench_page.parent / "timings.json").read_text())
    assert timings["unit"].startswith("seconds") and "total" in timings["seconds"]


# --- in a real browser ----------------------------------------------------------------------

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(n)), None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium installed "
                                                             "(apt-get install chromium)")
# Appended to a copy of the page: after load, records whether every image decoded.
PROBE = ("<script>window.addEventListener('load',function(){var bad=[].filter.call("
         "document.images,function(i){return !(i.complete&&i.naturalWidth>0);}).length;"
         "document.body.setAttribute('data-images-broken',String(bad));});</script>")
# Appended to the usage page's copy as well: presses the non_assertive filter, then records how
# many mention rows are still displayed.
CLICK = ("<script>window.addEventListener('load',function(){var b=document.querySelector("
         "\"button[data-filter='non_assertive']\");if(!b){return;}b.click();"
         "var n=[].filter.call(document.querySelectorAll('#mentions tbody tr'),function(r){"
         "return getComputedStyle(r).display!=='none';}).length;"
         "document.body.setAttribute('data-shown-after-filter',String(n));});</script>")


def _chromium(page: Path, tmp: Path, extra: str = "") -> tuple[str, str, Path]:
    """(DOM after load, console log, screenshot) of `page` in headless Chromium."""
    probe = tmp / ("probed-" + page.name)
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>",
                                                              PROBE + extra + "</body>"),
                     encoding="utf-8")
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-extensions", f"--user-data-dir={tmp / 'profile'}",
            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000"]
    dom = subprocess.run([*base, "--dump-dom", probe.as_uri()], capture_output=True, text=True,
                         timeout=120)
    shot = tmp / (page.stem + ".png")
    subprocess.run([*base, "--window-size=1280,2000", f"--screenshot={shot}", probe.as_uri()],
                   capture_output=True, text=True, timeout=120)
    return dom.stdout, dom.stderr, shot


def _console(log: str) -> list[str]:
    return [line for line in log.splitlines() if ":CONSOLE" in line]


@needs_chromium
@pytest.mark.slow
def test_usage_page_in_chromium(usage_page: Path, tmp_path: Path) -> None:
    from PIL import Image

    dom, log, shot = _chromium(usage_page, tmp_path)
    assert _console(log) == []
    assert 'data-images-broken="0"' in dom
    # The filter script ran: the "all" button is pressed and the count is filled in.
    assert re.search(r'data-filter="all" class="on"', dom)
    rows = _parse(usage_page.read_text(encoding="utf-8")).rows
    assert f'<span id="shown">{len(rows)}</span>' in dom
    # Pressing a class filter leaves that class's rows only.
    dom, log, _ = _chromium(usage_page, tmp_path, extra=CLICK)
    assert _console(log) == []
    n_na = sum(r["class"] == "non_assertive" for r in rows)
    assert 0 < n_na < len(rows)
    assert f'data-shown-after-filter="{n_na}"' in dom
    assert f'<span id="shown">{n_na}</span>' in dom
    image = Image.open(shot)
    assert image.size == (1280, 2000) and len(image.convert("L").getcolors(maxcolors=1 << 16) or []) > 10


@needs_chromium
@pytest.mark.slow
def test_bench_page_in_chromium(bench_page: Path, tmp_path: Path) -> None:
    dom, log, shot = _chromium(bench_page, tmp_path)
    assert _console(log) == []
    assert 'data-images-broken="0"' in dom and dom.count("<img") == 4
    assert shot.is_file() and shot.stat().st_size > 10_000


@needs_chromium
def test_console_errors_are_seen(tmp_path: Path) -> None:
    """The console check can fail: a page with a script error is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>undefinedFunction();</script></body></html>")
    _, log, _ = _chromium(bad, tmp_path)
    assert any("undefinedFunction" in line for line in _console(log))
