"""NAME-Bench: the labels + signals join (`dataset`), the calibrated protocol (`protocol`), its fit
step (`fitting`), the protocol over detectors, seeds and budgets (`runner`), the as-published
scores (`published`), one module per paper table (`tables`), and the commands that write them
(`run` for `bench run`, `appendix` for `bench tables`)."""
