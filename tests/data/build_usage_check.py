"""Select the mentions of the usage check set (`usage_check.jsonl`; see its README).

    python tests/data/build_usage_check.py --shared ../shared/data --out /tmp/candidates.jsonl

Writes the candidate rows *with* their caption text for the labellers (a file outside the repo:
caption text is not committed) and prints the counts. Deterministic (`random.Random(11)`).

Captions the offline judge was not developed on:
* the beam-search captions of LLaVA-1.5 and InstructBLIP (`opera_*_beam5`), all new;
* greedy captions of the four models on lines `usage_dev.jsonl` does not use;
* short one-line captions: the first sentence of a caption (`"variant": "first_sentence"`),
  the style of short-caption models, from lines neither of the above picks.
In each pool, half the mentions are drawn at random (the natural mix, which shows precision)
and half from cue pools (words near the mention that can make it non-assertive, and hard
negatives such as clothing phrases, "ready to", "appears to be a", quotes and "for"), so both
classes have enough rows. The split is by caption: sha1 of "source:line" even = tuning half.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Callable

from halluscope.text.mentions import extract_mentions

HERE = Path(__file__).parent
CUES = re.compile(
    r"\b(possibly|maybe|perhaps|likely|probably|might|could|may|appears?|seems?|suggest\w*|"
    r"looks? like|unclear|not sure|whether|if|picture|painting|photo\w*|drawing|poster|statue|"
    r"sculpture|figurine|toy|stuffed|logo|sign|print\w*|shaped|image of|depict\w*|for|waiting|"
    r"looking|ready|designed|used|meant|intended|no|not|without|lack\w*|absen\w*|neither|nor|"
    r"none|empty|n't|usually|typically|often|popular|such as|in a|wearing|shirt|jacket|dress|"
    r"\"|“|”)\b", re.IGNORECASE)
# Tighter cues, just before the mention in its sentence, for the third pool ("tight"): the first
# two pools hold too few non-assertive mentions to measure their recall and precision.
TIGHT_CUES = re.compile(
    r"\b(possibly|perhaps|maybe|likely|probably|may be|might be|could be|appears? to|seems? to|"
    r"what appears|what looks|unclear|whether|pictures? of|paintings? of|photos? of|images? of|"
    r"posters?|drawings?|statues?|sculptures?|figurines?|toys?|stuffed|logos?|signs?|prints?|"
    r"shaped|for (?:people|someone|a|an|the|their|his|her)|waiting for|looking for|ready to|"
    r"designed|used for|meant|no|not|without|neither|nor|absence|lack|usually|typically|often|"
    r"popular|such as)\b[^.!?\n]{0,40}$", re.IGNORECASE)


def split_of(source: str, line: int) -> str:
    digest = hashlib.sha1(f"{source}:{line}".encode()).hexdigest()
    return "tune" if int(digest, 16) % 2 == 0 else "check"


def first_sentence(caption: str) -> str:
    match = re.search(r"(?<=[.!?])\s|\n", caption.strip())
    return caption.strip()[:match.start()] if match else caption.strip()


def _extra_tuning_rows(shared: Path, chosen: list[dict], dev_lines: set[tuple[str, int]],
                       texts: dict[tuple[str, int], str]) -> list[dict]:
    """More tuning rows, added after the first figures showed the tuning half had too few
    non-assertive mentions to study: tight-cue mentions not yet chosen in the tuning half's
    captions ("tune_extra") and in the development set's captions ("dev_extra"). Both are
    tuning material only (split "tune"); the check half is untouched. Ids from 2000."""
    have = {(r["source"], r["line"], r["variant"], r["start"]) for r in chosen}
    tune_captions = sorted({(r["source"], r["line"], r["variant"]) for r in chosen
                            if r["split"] == "tune"})
    dev_have = {(r["source"], r["line"], r["start"]) for r in map(
        json.loads, (HERE / "usage_dev.jsonl").read_text().splitlines())}

    def tight_mentions(source: str, line: int, variant: str, pool: str,
                       skip: Callable[[int], bool]) -> list[dict]:
        full = texts[(source, line)]
        text = first_sentence(full) if variant == "first_sentence" else full
        return [{"source": source, "line": line, "variant": variant, "start": m.start,
                 "end": m.end, "word": m.word, "category": m.category, "caption": text,
                 "split": "tune", "pool": pool}
                for m in extract_mentions(text)
                if not skip(m.start) and TIGHT_CUES.search(text[max(0, m.start - 60):m.start])]

    tune_extra = [row for source, line, variant in tune_captions for row in tight_mentions(
        source, line, variant, "tune_extra", lambda s, k=(source, line, variant): (*k, s) in have)]
    random.Random(12).shuffle(tune_extra)
    tune_extra = sorted(tune_extra[:400], key=lambda r: (r["source"], r["line"], r["start"]))
    dev_extra = [row for source, line in sorted(dev_lines) for row in tight_mentions(
        source, line, "full", "dev_extra", lambda s, k=(source, line): (*k, s) in dev_have)]
    random.Random(13).shuffle(dev_extra)
    dev_extra = sorted(dev_extra[:200], key=lambda r: (r["source"], r["line"], r["start"]))
    extra = tune_extra + dev_extra
    for k, row in enumerate(extra, start=2000):
        row["id"] = k
    return extra


# Caption sources beyond the OPERA files, added in round 2 (tuning material only): another
# project's LLaVA-1.5 captions (other images, other prompt) and COCO's human reference captions
# (the short one-line style).
EXTRA_SOURCES = {
    "chairref_llava-1.5": ("chair_reference/llava_1.5_7B_CHAIR_output.json", "sentences"),
    "coco_val2017_human": ("coco/mini_val2017/captions_val2017.json", "annotations"),
}


# Round 15's short descriptions: the first line of the chain-of-thought answers two VLMs the
# judge never saw (Gemma-VL, Qwen-VL) gave on VSR's 340 dev items, as HalluPrism's released
# results hold them (lower-cased, articles dropped by its parser). Line = the item's number.
COT_SOURCES = {"halluprism_gemma_vl_cot": "gemma_vl", "halluprism_qwen_vl_cot": "qwen_vl"}


def source_captions(shared: Path, source: str) -> list[str]:
    """The captions of `source`, indexed by the rows' `line`."""
    if source in COT_SOURCES:
        path = shared / "halluprism_reference/decomposition" / COT_SOURCES[source] / "vsr.jsonl"
        # The released file repeats some rows (same answer); one per `sample_id`.
        by_item = {row["sample_id"]: row["cot_prediction"] or "" for row in map(
            json.loads, path.read_text().splitlines())}
        return [by_item[item] for item in sorted(by_item)]
    if source in EXTRA_SOURCES:
        path, key = EXTRA_SOURCES[source]
        return [entry["caption"] for entry in json.loads((shared / path).read_text())[key]]
    folder = shared / "captions" / ("beam_search" if "beam" in source else "")
    return [json.loads(raw)["caption"]
            for raw in (folder / f"{source}.jsonl").read_text().splitlines()]


def round2_rows(shared: Path, labelled: list[dict]) -> list[dict]:
    """Round 2, tuning material only (split "tune", ids from 3000), built after the first check
    figures showed the judge's non-assertive recall did not carry over from the tuning half:
    * `r2_opera_tight`: tight-cue mentions not yet labelled, in OPERA captions of the tuning
      split (sha1 even: no caption of the check half);
    * `r2_chairref_cue` / `r2_chairref_random`: another project's LLaVA-1.5 captions;
    * `r2_coco_cue` / `r2_coco_random`: COCO's human captions (short style)."""
    rng = random.Random(21)
    have = {(r["source"], r["line"], r["start"]) for r in labelled}
    out: list[dict] = []

    def mentions(source: str, line: int, text: str, pool: str) -> list[dict]:
        return [{"source": source, "line": line, "variant": "full", "start": m.start,
                 "end": m.end, "word": m.word, "category": m.category, "caption": text,
                 "split": "tune", "pool": pool,
                 "tight": bool(TIGHT_CUES.search(text[max(0, m.start - 60):m.start])),
                 "cue": bool(CUES.search(text[max(0, m.start - 60):m.end + 40]))}
                for m in extract_mentions(text) if (source, line, m.start) not in have]

    opera = []
    for path in sorted((shared / "captions").glob("**/opera_*.jsonl")):
        for line, text in enumerate(source_captions(shared, path.stem)):
            if split_of(path.stem, line) == "tune":
                opera += [r for r in mentions(path.stem, line, text, "r2_opera_tight")
                          if r["tight"]]
    rng.shuffle(opera)
    out += opera[:350]
    for source, short, n_cue, n_random in (("chairref_llava-1.5", "chairref", 330, 120),
                                           ("coco_val2017_human", "coco", 150, 100)):
        rows = [r for line, text in enumerate(source_captions(shared, source))
                for r in mentions(source, line, text, "")]
        rng.shuffle(rows)
        cue = [dict(r, pool=f"r2_{short}_cue") for r in rows if r["tight"]][:n_cue // 2]
        cue += [dict(r, pool=f"r2_{short}_cue") for r in rows
                if r["cue"] and not r["tight"]][:n_cue - len(cue)]
        taken = {(r["line"], r["start"]) for r in cue}
        out += cue + [dict(r, pool=f"r2_{short}_random") for r in rows
                      if (r["line"], r["start"]) not in taken][:n_random]
    out.sort(key=lambda r: (r["source"], r["line"], r["start"]))
    for k, row in enumerate(out, start=3000):
        row["id"] = k
        del row["tight"], row["cue"]
    return out


def round4_rows(shared: Path, labelled: list[dict], per_pool: int = 250) -> list[dict]:
    """Round 4, tuning material only (split "tune", ids from 7000), built because the check
    half's non-assertive recall stayed below the tuning rounds': round 1's own design (beam,
    greedy and first-sentence pools, each half at random and half with a cue near the mention)
    on mentions not yet labelled in OPERA captions of the tuning split (sha1 even), outside the
    development set's lines. The distribution of the check half, none of its captions."""
    rng = random.Random(41)
    have = {(r["source"], r["line"], r["variant"], r["start"]) for r in labelled}
    dev_lines = {(r["source"], r["line"]) for r in map(json.loads, (HERE / "usage_dev.jsonl")
                                                        .read_text().splitlines())}
    pools: dict[str, list[dict]] = {"beam": [], "greedy": [], "short": []}
    for path in sorted((shared / "captions").glob("**/opera_*.jsonl")):
        for line, full in enumerate(source_captions(shared, path.stem)):
            if split_of(path.stem, line) != "tune" or (path.stem, line) in dev_lines:
                continue
            variant = "full" if rng.random() < 0.6 else "first_sentence"
            text = full if variant == "full" else first_sentence(full)
            pool = "short" if variant != "full" else "beam" if "beam" in path.stem else "greedy"
            pools[pool] += [
                {"source": path.stem, "line": line, "variant": variant, "start": m.start,
                 "end": m.end, "word": m.word, "category": m.category, "caption": text,
                 "split": "tune", "cue": bool(CUES.search(text[max(0, m.start - 60):m.end + 40])),
                 "pool": pool}
                for m in extract_mentions(text)
                if (path.stem, line, variant, m.start) not in have]
    out: list[dict] = []
    for pool, rows in pools.items():
        for cue in (False, True):
            part = [r for r in rows if r["cue"] == cue]
            rng.shuffle(part)
            out += [dict(r, pool=f"r4_{pool}_{'cue' if cue else 'random'}")
                    for r in part[:per_pool]]
    out.sort(key=lambda r: (r["source"], r["line"], r["variant"], r["start"]))
    for k, row in enumerate(out, start=7000):
        row["id"] = k
        del row["cue"]
    return out


def round11_rows(shared: Path, labelled: list[dict], chairref: int = 310) -> list[dict]:
    """Round 11, tuning material only (split "tune", ids from 9000), built because fresh written
    captions kept being read far better than the check half: every mention still unlabelled in
    the tuning split's OPERA captions (sha1 even) that has a cue in its window (`CUES`), plus
    `chairref` of the same kind drawn from another project's LLaVA-1.5 captions (never in the
    check half), each in its full caption. A mention is labelled already when its source, line
    and start appear in usage_check.jsonl or usage_dev.jsonl, in either variant."""
    dev = [json.loads(raw) for raw in (HERE / "usage_dev.jsonl").read_text().splitlines()]
    have = {(r["source"], r["line"], r["start"]) for r in labelled + dev}
    sources = [p.stem for p in sorted((shared / "captions").glob("**/opera_*.jsonl"),
                                      key=lambda p: p.stem)] + ["chairref_llava-1.5"]
    found: list[dict] = []
    for source in sources:
        for line, text in enumerate(source_captions(shared, source)):
            if source != "chairref_llava-1.5" and split_of(source, line) != "tune":
                continue
            found += [
                {"source": source, "line": line, "variant": "full", "pool": "r11_cue",
                 "start": m.start, "end": m.end, "word": m.word, "category": m.category,
                 "caption": text}
                for m in extract_mentions(text)
                if (source, line, m.start) not in have
                and CUES.search(text[max(0, m.start - 60):m.end + 40])]
    opera = sorted((r for r in found if r["source"] != "chairref_llava-1.5"),
                   key=lambda r: (r["source"], r["line"], r["start"]))
    others = [r for r in found if r["source"] == "chairref_llava-1.5"]
    drawn = sorted(random.Random(111).sample(others, chairref),
                   key=lambda r: (r["line"], r["start"]))
    out = opera + drawn
    for k, row in enumerate(out, start=9000):
        row["id"] = k
        row["split"] = "tune"
    return out


def round12_rows(shared: Path, labelled: list[dict]) -> list[dict]:
    """Round 12, tuning material only (split "tune", ids from 11000): the cue-window mentions
    (`CUES`) still unlabelled in the development set's captions on odd-sha1 lines (which no
    pool of the check half drew from, as round 1 left `usage_dev`'s lines out), each in its
    full caption."""
    dev = [json.loads(raw) for raw in (HERE / "usage_dev.jsonl").read_text().splitlines()]
    have = {(r["source"], r["line"], r["start"]) for r in labelled + dev}
    out: list[dict] = []
    texts: dict[str, list[str]] = {}
    for source, line in sorted({(r["source"], r["line"]) for r in dev}):
        if split_of(source, line) == "tune":
            continue  # (round 11 took those)
        text = texts.setdefault(source, source_captions(shared, source))[line]
        out += [{"source": source, "line": line, "variant": "full", "pool": "r12_dev_cue",
                 "start": m.start, "end": m.end, "word": m.word, "category": m.category,
                 "caption": text, "split": "tune"}
                for m in extract_mentions(text)
                if (source, line, m.start) not in have
                and CUES.search(text[max(0, m.start - 60):m.end + 40])]
    for k, row in enumerate(out, start=11000):
        row["id"] = k
    return out


def round13_rows(shared: Path, labelled: list[dict]) -> list[dict]:
    """Round 13, tuning material only (split "tune", ids from 12000), built because rounds 11
    and 12 had used up every cue-window mention outside the check half: every mention still
    unlabelled, cue or not, in the OPERA captions outside the check half (the tuning split's
    lines and the development set's lines), each in its full caption. The non-assertive
    mentions no cue pattern finds are the ones no rule was written for."""
    dev = [json.loads(raw) for raw in (HERE / "usage_dev.jsonl").read_text().splitlines()]
    have = {(r["source"], r["line"], r["start"]) for r in labelled + dev}
    dev_lines = {(r["source"], r["line"]) for r in dev}
    out: list[dict] = []
    for path in sorted((shared / "captions").glob("**/opera_*.jsonl"), key=lambda p: p.stem):
        for line, text in enumerate(source_captions(shared, path.stem)):
            if split_of(path.stem, line) != "tune" and (path.stem, line) not in dev_lines:
                continue
            out += [{"source": path.stem, "line": line, "variant": "full", "pool": "r13_all",
                     "start": m.start, "end": m.end, "word": m.word, "category": m.category,
                     "caption": text, "split": "tune"}
                    for m in extract_mentions(text) if (path.stem, line, m.start) not in have]
    for k, row in enumerate(out, start=12000):
        row["id"] = k
    return out


def round14_rows(shared: Path, labelled: list[dict]) -> list[dict]:
    """Round 14, tuning material only (split "tune", ids from 17000): every mention still
    unlabelled, cue or not, in another project's LLaVA-1.5 captions (`chairref_llava-1.5`, never
    in the check half), each in its full caption: round 13's design on other captions."""
    dev = [json.loads(raw) for raw in (HERE / "usage_dev.jsonl").read_text().splitlines()]
    have = {(r["source"], r["line"], r["start"]) for r in labelled + dev}
    source = "chairref_llava-1.5"
    out = [{"source": source, "line": line, "variant": "full", "pool": "r14_chairref_all",
            "start": m.start, "end": m.end, "word": m.word, "category": m.category,
            "caption": text, "split": "tune"}
           for line, text in enumerate(source_captions(shared, source))
           for m in extract_mentions(text) if (source, line, m.start) not in have]
    for k, row in enumerate(out, start=17000):
        row["id"] = k
    return out


def round15_rows(shared: Path, labelled: list[dict]) -> list[dict]:
    """Round 15, tuning material only (split "tune", ids from 20000): every mention of the short
    descriptions two VLMs outside the check half wrote (`COT_SOURCES`): real text of other
    models in the one-line style, none of it in the check half."""
    out = [{"source": source, "line": line, "variant": "full", "pool": "r15_cot_all",
            "start": m.start, "end": m.end, "word": m.word, "category": m.category,
            "caption": text, "split": "tune"}
           for source in COT_SOURCES
           for line, text in enumerate(source_captions(shared, source))
           for m in extract_mentions(text)]
    for k, row in enumerate(out, start=20000):
        row["id"] = k
    return out


# The tuning-only rounds: (number, builder, first id).
ROUNDS: tuple[tuple[int, Callable[[Path, list[dict]], list[dict]], int], ...] = (
    (2, round2_rows, 3000), (4, round4_rows, 7000), (11, round11_rows, 9000),
    (12, round12_rows, 11000), (13, round13_rows, 12000), (14, round14_rows, 17000),
    (15, round15_rows, 20000))
# The labelled rows, in two files (each under 5 MB): rounds 1 to 12, and the rounds that took
# every mention of their captions (13 to 15, ids from 12000).
LABELLED_FILES = (HERE / "usage_check.jsonl", HERE / "usage_check_every_mention.jsonl")


def labelled_rows() -> list[dict]:
    """Every labelled row of the check set, both files, in id order."""
    return [json.loads(raw) for path in LABELLED_FILES for raw in path.read_text().splitlines()]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--per-pool", type=int, default=300, help="mentions per pool and half")
    ap.add_argument("--tight", type=int, default=500, help="mentions of the tight-cue pool")
    for number, _, _ in ROUNDS:
        ap.add_argument(f"--round{number}", type=Path, help=f"write round {number}'s candidates "
                        "(tuning only) to this file, given the rows labelled before it")
    args = ap.parse_args()
    # A later round is drawn given the rows labelled before it (ids under its first id), so
    # it rebuilds the same way after its own rows were added.
    for number, build, first_id in ROUNDS:
        out = getattr(args, f"round{number}")
        if out:
            labelled = [row for row in labelled_rows() if row["id"] < first_id]
            rows = build(args.shared, labelled)
            out.write_text("".join(json.dumps(r) + "\n" for r in rows))
            print(len(rows), f"round-{number} mentions;", dict(Counter(r["pool"] for r in rows)))
            return
    rng = random.Random(11)
    dev_lines = {(r["source"], r["line"]) for r in map(json.loads, (HERE / "usage_dev.jsonl")
                                                        .read_text().splitlines())}
    captions = args.shared / "captions"
    pools: dict[str, list[dict]] = {"beam": [], "greedy": [], "short": []}
    used_lines: set[tuple[str, int]] = set()
    files = sorted((captions / "beam_search").glob("opera_*_beam5.jsonl")) + sorted(
        captions.glob("opera_*_greedy.jsonl"))
    texts: dict[tuple[str, int], str] = {}
    for path in files:
        for line, raw in enumerate(path.read_text().splitlines()):
            texts[(path.stem, line)] = json.loads(raw)["caption"]
    keys = sorted(texts)
    rng.shuffle(keys)
    for source, line in keys:
        if (source, line) in dev_lines:
            continue
        pool = "beam" if source.endswith("beam5") else "greedy"
        # A caption gives its full text to one pool or its first sentence to "short".
        variant = "full" if rng.random() < 0.6 else "first_sentence"
        text = texts[(source, line)] if variant == "full" else first_sentence(texts[(source, line)])
        for m in extract_mentions(text):
            window = text[max(0, m.start - 60):m.end + 40]
            pools["short" if variant == "first_sentence" else pool].append({
                "source": source, "line": line, "variant": variant, "start": m.start,
                "end": m.end, "word": m.word, "category": m.category,
                "cue": bool(CUES.search(window)), "caption": text,
                "split": split_of(source, line)})
    chosen = []
    for name, rows in pools.items():
        for cue in (False, True):
            part = [r for r in rows if r["cue"] == cue]
            rng.shuffle(part)
            chosen += part[:args.per_pool]
    chosen.sort(key=lambda r: (r["source"], r["line"], r["variant"], r["start"]))
    for k, row in enumerate(chosen):
        row["id"] = k
        used_lines.add((row["source"], row["line"]))
    # The tight pool: full captions on lines no other pool took (ids after the first pools').
    tight = [dict(r, pool="tight") for r in pools["beam"] + pools["greedy"]
             if (r["source"], r["line"]) not in used_lines
             and TIGHT_CUES.search(r["caption"][max(0, r["start"] - 60):r["start"]])]
    rng.shuffle(tight)
    tight = sorted(tight[:args.tight], key=lambda r: (r["source"], r["line"], r["start"]))
    for k, row in enumerate(tight, start=len(chosen)):
        row["id"] = k
    chosen += tight
    chosen += _extra_tuning_rows(args.shared, chosen, dev_lines, texts)
    for row in chosen:
        cue = row.pop("cue", None)
        if "pool" not in row:
            row["pool"] = ("short_" if row["variant"] != "full" else "") + \
                ("cue" if cue else "random")
    args.out.write_text("".join(json.dumps(r) + "\n" for r in chosen))
    counts = Counter((r["split"], r["pool"]) for r in chosen)
    captions_used = len({(r["source"], r["line"], r["variant"]) for r in chosen})
    print(len(chosen), "mentions from", captions_used, "captions;", dict(sorted(counts.items())))


if __name__ == "__main__":
    main()
