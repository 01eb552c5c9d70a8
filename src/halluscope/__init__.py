"""halluscope: what a vision-language model's output claims, which claims are hallucinated, and why.

>>> from halluscope.text.mentions import extract_mentions
>>> [m.category for m in extract_mentions("A hot dog next to a cat.")]
['hot dog', 'cat']

Importing this package stays light: no torch, no spaCy, no network. Heavy dependencies are
imported lazily by the modules that need them.
"""

import os

__version__ = "0.1.0"

# Bit-identical rows whatever the number of workers: on some CPUs (AVX-512 here) MKL picks a
# different float32 GEMM kernel for 1 thread than for 2, so a 2-actor Ray run (1 thread each)
# differed from the single process (2 threads) by ~1e-7. MKL's strict conditional numerical
# reproducibility makes GEMM independent of the thread count, at no measured cost (a 600x576 by
# 576x1536 matmul: 8.7 ms default, 7.7 ms strict). MKL reads it at its first call, which comes
# after this import; a value the user set is kept.
os.environ.setdefault("MKL_CBWR", "AUTO,STRICT")
