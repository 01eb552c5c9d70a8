"""Object vocabularies: the 80 COCO categories with NAME-Bench's surface forms, user files, CHAIR's table."""

from halluscope.vocab.coco import COCO_CATEGORIES, NAMEBENCH_FORMS
from halluscope.vocab.vocabulary import Vocabulary, load_vocabulary

__all__ = ["COCO_CATEGORIES", "NAMEBENCH_FORMS", "Vocabulary", "load_vocabulary"]
