"""The paper's tables, one module each, in one registry: which command makes each, and how.

>>> TABLES.select(command="tables")
['6', '11', '14', '15', '16', '17', 'position3', 'relpos', 'figure1']
>>> TABLES.meta("4")["command"], TABLES.entry("4").target
('run', 'halluscope.bench.tables.table4:table4')

`bench run` makes Tables 1, 2, 4, 5, 7 and 13 from the seed scores it computes; `bench tables`
makes the appendix tables (each module's `build(TableInputs)`; `--tables 6,11` picks by name);
`bench table3` and `bench table10` have commands of their own (`run_table3`, `run_table10`
around the registered pure functions). Adding a table: a module here
with a pure function from a `MentionTable` (+ features) to a `make_table(...)` dict, a
`build(inputs)` when `bench tables` should make it, and one `TABLES.add` line below.
"""

from halluscope.registry import Registry

TABLES = Registry("table")
_HERE = "halluscope.bench.tables"
TABLES.add("1", f"{_HERE}.table1:table1", command="run", title="natural rates")
TABLES.add("2", f"{_HERE}.table2:table2", command="run", title="mentions per class and subtype")
TABLES.add("3", f"{_HERE}.table3:table3_rows", command="table3", title="CHAIR and THRONE")
TABLES.add("4", f"{_HERE}.table4:table4", command="run", title="FPR without NA training")
TABLES.add("5", f"{_HERE}.table5:table5", command="run", title="mixing budgets")
TABLES.add("6", f"{_HERE}.table6:build", command="tables", title="seen vs unseen subtype")
TABLES.add("7", f"{_HERE}.table7:table7", command="run", title="absent vs present")
TABLES.add("10", f"{_HERE}.table10:combine", command="table10",
           title="teacher-forced control")
TABLES.add("11", f"{_HERE}.table11:build", command="tables", title="text filter")
TABLES.add("13", f"{_HERE}.table13:table13", command="run", title="position matching")
TABLES.add("14", f"{_HERE}.table14:build", command="tables", title="FPR by subtype and budget")
TABLES.add("15", f"{_HERE}.table15:build", command="tables", title="hedges as claims")
TABLES.add("16", f"{_HERE}.table16:build", command="tables", title="excluded mentions")
TABLES.add("17", f"{_HERE}.table17:build", command="tables", title="concepts per subtype")
# Analyses the paper reports without a table of their own (§4.1, Figure 1, Appendix F).
TABLES.add("position3", f"{_HERE}.position3:build", command="tables",
           title="three-class position match (§4.1)")
TABLES.add("relpos", f"{_HERE}.relpos:build", command="tables",
           title="median relative position per class (§4.1)")
TABLES.add("figure1", f"{_HERE}.figure1:build", command="tables",
           title="before / after 20 non-assertive examples (Figure 1)")
TABLES.add("12", f"{_HERE}.table12:table12", command="table12",
           title="THRONE judges and votes, pooled over models")

__all__ = ["TABLES"]
