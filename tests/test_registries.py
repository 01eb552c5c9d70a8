"""Every registered extension point loads and carries a docstring example.

The six registries (model families, detectors, usage judges, probes, interventions, paper
tables) and the generation backends are where a newcomer adds things; an entry without a `>>>`
example is how the next one learns nothing, so a missing example fails here.
"""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from halluscope.bench.tables import TABLES
from halluscope.detectors import DETECTORS
from halluscope.generation.backends import BACKENDS
from halluscope.models.registry import FAMILIES
from halluscope.prism.interventions import INTERVENTION_REGISTRY
from halluscope.prism.probes import PROBE_REGISTRY
from halluscope.text.usage.base import JUDGES

REGISTRIES = {"family": FAMILIES, "detector": DETECTORS, "judge": JUDGES, "backend": BACKENDS,
              "probe": PROBE_REGISTRY, "intervention": INTERVENTION_REGISTRY, "table": TABLES}
ENTRIES = [(kind, entry) for kind, registry in REGISTRIES.items() for entry in registry.entries()]


def _example_lines(doc: str) -> list[str]:
    return [line.strip() for line in doc.splitlines()
            if line.strip().startswith((">>>", "..."))]


def _has_example(target: object) -> bool:
    """The target's own docstring has an example (a class's own, not one inherited from its
    base), or its module's docstring has one that calls it by name (a one-table module)."""
    own = target.__dict__.get("__doc__") if inspect.isclass(target) else target.__doc__
    if _example_lines(own or ""):
        return True
    module_doc = inspect.getmodule(target).__doc__ or ""
    return any(f"{target.__name__}(" in line for line in _example_lines(module_doc))


@pytest.mark.parametrize("kind,entry", ENTRIES, ids=[f"{k}:{e.name}" for k, e in ENTRIES])
def test_registered_entry_loads_and_has_an_example(kind, entry):
    assert _has_example(entry.load()), (
        f"{kind} {entry.name!r} ({entry.target}) has no '>>>' example in its own docstring")


def test_every_registry_is_not_empty_and_names_are_unique_strings():
    for kind, registry in REGISTRIES.items():
        names = list(registry)
        assert names, kind
        assert len(names) == len(set(names)) and all(isinstance(n, str) for n in names), kind


def test_building_the_registries_imports_no_heavy_library():
    """Entries are "module:attribute" strings: listing them must not load torch and friends."""
    code = ("import sys\n"
            "import halluscope.bench.tables, halluscope.detectors, halluscope.generation.backends\n"
            "import halluscope.models.registry, halluscope.prism.probes, halluscope.text.usage.base\n"
            "import halluscope.prism.interventions\n"
            "print(sorted(m for m in ('torch', 'transformers', 'sklearn', 'vllm', 'ray')"
            " if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]", result.stdout
