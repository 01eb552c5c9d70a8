"""What a real language model's hidden states know about usage (NAME-Bench Table 11's question).

    python benchmarks/usage_hidden_states.py --data-root ../shared/data --out runs/usage_states

On the four real greedy caption sets (2,000 captions, ~11k mentions; usage from the offline
judge, presence from CHAIR's ground truth), with LLaVA-1.5 whose language tower is the real
SmolLM2-135M-Instruct (`models make-tiny --text-model smollm2-135m`, cached):
1. `halluscope report` labels every mention, `halluscope signals` teacher-forces every caption
   (text-only pass included);
2. per feature layer (the text-only W4 means at the middle and last layer) and seed 0, 1, 2 of
   the image-level split (53.3/13.3/33.3 %), two classifiers of non-assertive vs existential:
   - the text filter as Appendix E fits it: class-balanced logistic regression on standardised
     states, fit concrete + hallucinated plus the natural share of non-assertive mentions,
     decision p > 0.5;
   - the text-only hidden-state probe's estimator fit on every fit-split mention (the same
     logistic regression, no natural-share budget);
   reported on held-out: AUC, non-assertive recall at the threshold that flags 10 % of the
   *calibration* existential mentions (then its held-out existential FPR), and the filter's
   p > 0.5 recall / existential FPR / hallucinations removed (mean ± std over seeds);
3. `halluscope bench fit-text-filter` (seed 0) + `halluscope label --judge text_filter` on the
   same captions, compared with the hand-labelled development set (`tests/data/usage_dev.jsonl`)
   on its mentions whose image is held out in seed 0 (the filter never saw them), beside the
   offline judge's figures on the same rows.
Prints a Markdown table and `RESULT` lines; writes `results.json` under `--out`.
The vision tower is random, so image tokens carry no information: only the text-only states
(which never see the image) are meaningful here.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

SETS = ("instructblip", "llava-1.5", "minigpt4", "shikra")
COLUMNS = {"mid": "text_hidden_mid_w4", "last": "text_hidden_last_w4"}
REPO = Path(__file__).resolve().parents[1]


def run(*args: str) -> str:
    cmd = [sys.executable, "-m", "halluscope.cli.main", *args]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args[:2])} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def write_captions(root: Path, out: Path, limit: int | None) -> list[dict]:
    """All four sets in one file; returns the rows. Every caption is read with one grey image
    (`placeholder.png`): the COCO images are not in the data root, the vision tower is random,
    and the text-only states measured here never see the image."""
    from PIL import Image

    Image.new("RGB", (56, 56), (128, 128, 128)).save(out.parent / "placeholder.png")
    rows = []
    for name in SETS:
        path = root / "captions" / f"opera_{name}_greedy.jsonl"
        for line, text in enumerate(path.read_text(encoding="utf-8").splitlines()):
            record = json.loads(text)
            rows.append({"image_id": record["image_id"], "image": "placeholder.png",
                         "caption": record["caption"], "source": f"opera_{name}_greedy",
                         "line": line})
            if limit and line + 1 >= limit:
                break
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return rows


def evaluate(table, features, seeds, natural_share) -> dict:
    from sklearn.metrics import roc_auc_score

    from halluscope.bench.protocol import split_codes
    from halluscope.bench.tables.table11 import text_filter_rows
    from halluscope.text.usage.text_filter import fit_text_filter

    na = table.label == "non_assertive"
    hallucinated = table.label == "hallucinated"
    results: dict = {}
    for layer, column in COLUMNS.items():
        x = np.asarray(features[column], dtype=np.float64)
        for method in ("text filter (App. E)", "text-only probe"):
            cells: dict[str, list[float]] = {}
            for seed in seeds:
                codes = split_codes(table.image_id, seed)
                if method.startswith("text filter"):
                    rows, _ = text_filter_rows(table, codes, seed, natural_share)
                else:
                    rows = np.flatnonzero(codes == 0)
                model = fit_text_filter(x[rows], na[rows], column=column)
                p = model.probability(x)
                held, calib = codes == 2, codes == 1
                threshold = np.quantile(p[calib & ~na], 0.9)
                values = {
                    "AUC": roc_auc_score(na[held], p[held]),
                    "NA recall @10% FPR": float((p[held & na] > threshold).mean()),
                    "existential FPR (held-out)": float((p[held & ~na] > threshold).mean()),
                    "NA recall p>0.5": float((p[held & na] > 0.5).mean()),
                    "existential FPR p>0.5": float((p[held & ~na] > 0.5).mean()),
                    "halluc removed p>0.5": float((p[held & hallucinated] > 0.5).mean())}
                for k, v in values.items():
                    cells.setdefault(k, []).append(float(v))
            results[f"{method} / {layer}"] = {
                k: {"mean": float(np.mean(v)), "std": float(np.std(v)), "seeds": v}
                for k, v in cells.items()}
    return results


def dev_agreement(out: Path, rows: list[dict], labels_tf: Path, labels_offline: Path) -> dict:
    """Text-filter and offline-judge usage vs the development set's gold, on dev mentions whose
    image is held out in seed 0."""
    import pyarrow.parquet as pq

    from halluscope.bench.protocol import split_codes

    index = {(r["source"], r["line"]): i for i, r in enumerate(rows)}
    gold = [json.loads(x) for x in (REPO / "tests/data/usage_dev.jsonl").read_text().splitlines()]
    gold = [g for g in gold if g["usage"] in ("existential", "non_assertive")
            and (g["source"], g["line"]) in index]
    ids = np.array([str(r["image_id"]) for r in rows], dtype=object)
    held_images = {i for i, c in zip(ids, split_codes(ids, 0)) if c == 2}
    result = {}
    for name, path in (("text filter", labels_tf), ("offline judge", labels_offline)):
        predicted = {(r["caption_index"], r["start"]): r["usage"]
                     for r in pq.read_table(path, columns=["caption_index", "start", "usage"]
                                            ).to_pylist()}
        pairs = []
        for g in gold:
            caption_index = index[(g["source"], g["line"])]
            if str(rows[caption_index]["image_id"]) not in held_images:
                continue
            pairs.append((g["usage"], predicted.get((caption_index, g["start"]))))
        if not pairs:
            continue
        truth = np.array([t == "non_assertive" for t, _ in pairs])
        said = np.array([p == "non_assertive" for _, p in pairs])
        result[name] = {"n": len(pairs), "n_non_assertive": int(truth.sum()),
                        "agreement": float((truth == said).mean()),
                        "na_recall": float(said[truth].mean()) if truth.any() else None,
                        "na_precision": float(truth[said].mean()) if said.any() else None,
                        "unlabelled": sum(p is None for _, p in pairs)}
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-root", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=REPO / "runs" / "usage_states")
    ap.add_argument("--limit", type=int, default=None, help="captions per set (default: all)")
    ap.add_argument("--batch-size", type=int, default=8)
    args = ap.parse_args()
    out, root = args.out, args.data_root
    out.mkdir(parents=True, exist_ok=True)

    from halluscope.demo.model_demo import REAL_TOWER_SIZES
    from halluscope.models import make_tiny

    model = make_tiny("llava", out / "model", text_model="smollm2-135m", **REAL_TOWER_SIZES)
    captions = out / "captions.jsonl"
    rows = write_captions(root, captions, args.limit)
    gt = root / "coco" / "chair_gt_objects_coco2014.json"
    run("report", "--captions", str(captions), "--annotations", str(gt), "--out",
        str(out / "report"), "--bootstrap", "10")
    labels = out / "report" / "mentions.parquet"
    print(run("signals", "--model", str(model), "--captions", str(captions), "--images",
              str(out), "--out", str(out / "signals"),
              "--batch-size", str(args.batch_size)).strip(), flush=True)

    from halluscope.bench.dataset import load_bench
    from halluscope.bench.tables.common import resolve_natural_share

    data = load_bench(labels, out / "signals", list(COLUMNS.values()), gt)
    # The dev set's captions are of random images: their own share is the natural one.
    natural_share = resolve_natural_share(data.table, None, estimate=True).value
    results = {"mentions": len(data.table), "natural_share": natural_share,
               "counts": {c: int((data.table.label == c).sum())
                          for c in ("concrete", "hallucinated", "non_assertive")},
               "layers": evaluate(data.table, data.features, (0, 1, 2), natural_share)}

    run("bench", "fit-text-filter", "--labels", str(labels), "--signals", str(out / "signals"),
        "--annotations", str(gt), "--out", str(out / "text_filter.json"), "--seed", "0",
        "--estimate-natural-share")
    run("label", "--captions", str(captions), "--judge", "text_filter", "--text-filter",
        str(out / "text_filter.json"), "--signals", str(out / "signals"), "--out",
        str(out / "labels_text_filter.parquet"))
    results["dev_set"] = dev_agreement(out, rows, out / "labels_text_filter.parquet", labels)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")

    print(f"{results['mentions']} mentions ({results['counts']}), natural share "
          f"{natural_share:.3f}; held-out, mean ± std over seeds 0-2\n")
    print("| classifier / layer | AUC | NA recall @10% exist. FPR | exist. FPR (held-out) "
          "| NA recall p>0.5 | exist. FPR p>0.5 | halluc. removed p>0.5 |")
    print("|---|---|---|---|---|---|---|")
    for name, cells in results["layers"].items():
        print(f"| {name} | " + " | ".join(
            f"{c['mean']:.3f} ± {c['std']:.3f}" for c in cells.values()) + " |")
    for name, r in results["dev_set"].items():
        print(f"dev set (held-out images, seed 0), {name}: n={r['n']} "
              f"({r['n_non_assertive']} NA), agreement {r['agreement']:.3f}, NA recall "
              f"{r['na_recall']}, NA precision {r['na_precision']}, unlabelled {r['unlabelled']}")
    best = max(results["layers"].items(), key=lambda kv: kv[1]["AUC"]["mean"])
    print(f"RESULT best_auc={best[1]['AUC']['mean']:.3f} ({best[0]})")


if __name__ == "__main__":
    main()
