"""One small registry for every extension point: named entries, imported only when used.

>>> greetings = Registry("greeting")
>>> greetings.add("shout", "string:capwords", loud=True)
>>> greetings.add("strip", "textwrap:dedent")
>>> greetings.load("shout")("hello world")
'Hello World'
>>> list(greetings), greetings.meta("shout"), greetings.select(loud=True)
(['shout', 'strip'], {'loud': True}, ['shout'])
>>> greetings.add("shout", "textwrap:indent")
Traceback (most recent call last):
...
halluscope.errors.ConfigError: greeting 'shout' is registered twice (string:capwords, textwrap:indent)
>>> greetings.load("whisper")
Traceback (most recent call last):
...
halluscope.errors.ConfigError: unknown greeting 'whisper'; choose one of shout, strip

Model families, detectors, usage judges, generation backends, probes and paper tables each have
one (`halluscope.models.registry.FAMILIES`, `halluscope.detectors.DETECTORS`,
`halluscope.text.usage.base.JUDGES`, `halluscope.generation.backends.BACKENDS`,
`halluscope.prism.probes.PROBE_REGISTRY`, `halluscope.bench.tables.TABLES`). An entry's target is
"module:attribute", so building the registry imports nothing (torch, sklearn and transformers
stay unloaded until an entry is used); its metadata (plain keyword values) answers questions
such as "which feature columns does this detector read" without importing it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from halluscope.errors import ConfigError


@dataclass(frozen=True)
class Entry:
    """One registered item: its name, where it lives ("module:attribute") and its metadata."""

    name: str
    target: str
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def load(self) -> Any:
        module_name, _, attribute = self.target.partition(":")
        return getattr(importlib.import_module(module_name), attribute)


class Registry:
    """Entries of one kind ("detector", "model family", ...), in the order they were added."""

    def __init__(self, kind: str):
        self.kind = kind
        self._entries: dict[str, Entry] = {}

    def add(self, name: str, target: str, **metadata: Any) -> None:
        """Register `target` ("module:attribute") as `name`; a second `name` is an error."""
        if ":" not in target:
            raise ValueError(f"{self.kind} {name!r}: target {target!r} is not 'module:attribute'")
        if name in self._entries:
            raise ConfigError(f"{self.kind} {name!r} is registered twice "
                              f"({self._entries[name].target}, {target})")
        self._entries[name] = Entry(name, target, dict(metadata))

    def entry(self, name: str) -> Entry:
        """The entry `name`, or a ConfigError listing the registered names."""
        try:
            return self._entries[name]
        except KeyError:
            raise ConfigError(f"unknown {self.kind} {name!r}; choose one of "
                              f"{', '.join(self._entries)}") from None

    def load(self, name: str) -> Any:
        """The object registered as `name`, imported now."""
        return self.entry(name).load()

    def meta(self, name: str) -> Mapping[str, Any]:
        return self.entry(name).metadata

    def select(self, **metadata: Any) -> list[str]:
        """Names whose metadata has every given value, in registration order."""
        return [name for name, e in self._entries.items()
                if all(e.metadata.get(k) == v for k, v in metadata.items())]

    def entries(self) -> list[Entry]:
        return list(self._entries.values())

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {list(self._entries)})"
