"""HalluPrism perturbation-response signatures (V, L, A) and the analyses of released results.

>>> from halluscope.prism.signature import reference_v
>>> round(reference_v(flips=[True, False, False, False], deltas=[0.2, 0.0, 0.0, 0.0]), 3)
0.19

Modules: `signature` (the paper's equations and the reference code's formulas as the
"reference" preset), `results` (loading released `<model>/<dataset>.jsonl` rows: validation,
de-duplication, strict correctness), `selective` (AUROC with mid-ranks, risk-coverage, AURC),
`analysis` (profile / abstain / route / recompute), the model side (`datasets`, `answers`,
`perturb`, `probes`), the further analyses (`diagnosis`, `routing` by normalised dominance,
`audit`, `entanglement`) and `cli` (the `halluscope prism` sub-app).
"""
