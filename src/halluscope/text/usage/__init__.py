"""Usage labelling: is a mention a claim (existential) or merely a mention (non-assertive)?

>>> from halluscope.text.usage import get_judge   # judges are built lazily by name
>>> sorted(JUDGES)
['llm', 'offline', 'text_filter']
"""

from halluscope.text.usage.base import (JUDGES, SUBTYPES, USAGES, JudgeFailure, UsageJudge,
                                        UsageLabel, get_judge)

__all__ = ["JUDGES", "SUBTYPES", "USAGES", "JudgeFailure", "UsageJudge", "UsageLabel", "get_judge"]
