"""Throughput of mention extraction and of the offline usage judge, on one core.

    python benchmarks/bench_text.py [--data ../shared/data] [--repeat 3]

Reads the four real caption sets (2,000 detailed captions). Baselines measured in the same run:
- extraction vs. one compiled regular expression over all surface forms (the paper's method);
- the offline judge vs. the same spaCy parse alone (its floor: the judge cannot beat parsing).
Targets (issue 2): extraction >= 5,000 captions/s, offline judge >= 100 captions/s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path

# One core: pin BLAS/OpenMP threads before numpy or spaCy load.
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = "1"


def best_time(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path,
                        default=Path(__file__).resolve().parents[1].parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

    from halluscope.text.mentions import MentionExtractor
    from halluscope.vocab import Vocabulary

    files = sorted((args.data / "captions").glob("*.jsonl"))
    captions = [json.loads(line)["caption"] for f in files for line in f.open() if line.strip()]
    print(f"{len(captions)} captions from {len(files)} files")

    vocabulary = Vocabulary.namebench()
    extractor = MentionExtractor(vocabulary)
    forms = sorted(vocabulary.form_to_category, key=len, reverse=True)
    baseline = re.compile(r"\b(?:" + "|".join(r"\s+".join(map(re.escape, f.split()))
                                                for f in forms) + r")\b", re.IGNORECASE)
    t_extract = best_time(lambda: [extractor(c) for c in captions], args.repeat)
    t_regex = best_time(lambda: [list(baseline.finditer(c)) for c in captions], args.repeat)
    mentions = [extractor(c) for c in captions]
    extraction_rate = len(captions) / t_extract
    print(f"extraction: {extraction_rate:,.0f} captions/s "
          f"({sum(map(len, mentions)):,} mentions); single-regex baseline "
          f"{len(captions) / t_regex:,.0f} captions/s; speedup {t_regex / t_extract:.2f}x")

    from halluscope.text.usage.offline import OfflineJudge

    judge = OfflineJudge()
    judge.label(captions[:8], mentions[:8])            # load the pipeline outside the timing
    nlp = judge.nlp if hasattr(judge, "nlp") else None
    t_judge = best_time(lambda: judge.label(captions, mentions), 1)
    judge_rate = len(captions) / t_judge
    line = f"offline judge: {judge_rate:,.0f} captions/s"
    if nlp is not None:
        from halluscope.text.usage.offline import _UNUSED_PIPES

        disabled = [p for p in _UNUSED_PIPES if p in nlp.pipe_names]
        t_parse = best_time(lambda: list(nlp.pipe(captions, batch_size=64, disable=disabled)), 1)
        line += (f"; spaCy parse alone {len(captions) / t_parse:,.0f} captions/s; "
                 f"judge/parse time ratio {t_judge / t_parse:.2f}")
    print(line)
    print(f"RESULT extraction_captions_per_s={extraction_rate:.0f} "
          f"extraction_target_ratio={extraction_rate / 5000:.2f} "
          f"judge_captions_per_s={judge_rate:.0f} judge_target_ratio={judge_rate / 100:.2f}")


if __name__ == "__main__":
    main()
