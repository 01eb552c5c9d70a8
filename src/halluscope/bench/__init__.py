"""NAME-Bench: classes from usage and presence (`classes`), the calibrated protocol (`protocol`),
the labels + signals join (`dataset`), the experiments and tables (`experiments`,
`tables_extra`), the run that writes them (`run`) and the `halluscope bench` sub-app (`cli`)."""
