"""halluscope: what a vision-language model's output claims, which claims are hallucinated, and why.

>>> from halluscope.text.mentions import extract_mentions
>>> [m.category for m in extract_mentions("A hot dog next to a cat.")]
['hot dog', 'cat']

Importing this package stays light: no torch, no spaCy, no network. Heavy dependencies are
imported lazily by the modules that need them.
"""

__version__ = "0.1.0"
