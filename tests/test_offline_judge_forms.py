"""The offline usage judge on the forms studied on the usage check set's tuning half.

Each case is a hand-written general form of an error class seen there (never a caption copied
from the set), with the hard negative that the rule must leave alone. Expected labels follow the
labelling guide (`tests/data/usage_check_guide.md`), not the judge's code.
"""

from __future__ import annotations

import pytest

# The judge fixture and the label lookup of the hand-made cases.
from test_offline_judge import judge, label_of  # noqa: F401


# (caption, word, occurrence, subtype)
NON_ASSERTIVE = [
    # An owner or agent introduced only inside the hedge: another kind of person than the ones
    # asserted is not a reference back.
    ("A man stands near the bags, likely belonging to the women inside.", "women", 0, "hedged"),
    ("A row of men's suits hangs there, possibly owned by the men who work here.", "men", 1,
     "hedged"),
    # An intensional verb inside a purpose clause: whatever bus comes, even after a bus.
    ("A bus is parked nearby. A bench gives a place for people to sit while waiting for the "
     "bus.", "bus", 1, "purpose"),
    # A where-clause about a kind, with "such as" examples and a present tense.
    ("It suggests a valley where animals, such as sheep, roam freely.", "sheep", 0, "generic"),
    ("A hill where horses graze.", "horses", 0, "generic"),
    # A gerund activity named in a purpose phrase.
    ("The park is a popular spot for kite flying.", "kite", 0, "generic"),
    # What a depicted figure holds is depicted, teddy bears included.
    ("A statue of a girl holding a teddy bear stands by the door.", "teddy bear", 0,
     "depictive"),
    ("A statue of a man holding an umbrella.", "umbrella", 0, "depictive"),
    # A definite reference back to a toy is the toy.
    ("A dog holds a toy carrot. It is possibly chewing the carrot.", "carrot", 1, "depictive"),
    ("A boy holds a toy truck. The truck is red.", "truck", 1, "depictive"),
    # "passenger car" off the rails is an automobile.
    ("The view is through a windshield, possibly from a passenger car.", "car", 0, "hedged"),
    # A list whose last item the parser hangs on the verb.
    ("The sign has a drawing of a horse, a dog, and a person riding a bike.", "person", 0,
     "depictive"),
    ("The sign has a drawing of a horse, a dog, and a person riding a bike.", "bike", 0,
     "depictive"),
    # A representation resembling something; a costume.
    ("A stuffed toy, possibly resembling a horse or a cow.", "cow", 0, "depictive"),
    ("The mailbox is painted to resemble a bus.", "bus", 0, "depictive"),
    ("A child dressed as a cat waves.", "cat", 0, "depictive"),
    ("There is an advertisement for a car on the wall.", "car", 0, "depictive"),
    # A hedge on a whole clause covers its subject.
    ("It appears that a cat is sleeping on the couch.", "cat", 0, "hedged"),
    ("It looks like there is a dog behind the fence.", "dog", 0, "hedged"),
    ("It is likely that a dog lives here.", "dog", 0, "hedged"),
    ("A dog is probably sleeping next to him.", "dog", 0, "hedged"),
    # Alternatives of different kinds, each with its article.
    ("A kite or a bird is flying in the sky.", "bird", 0, "hedged"),
    # Absence and capacity.
    ("The street is empty of cars.", "cars", 0, "negation"),
    ("The parking lot can accommodate many cars.", "cars", 0, "purpose"),
]


@pytest.mark.parametrize("caption, word, occurrence, subtype", NON_ASSERTIVE)
def test_non_assertive_forms(judge, caption, word, occurrence, subtype):
    label = label_of(judge, caption, word, occurrence)
    assert (label.usage, label.subtype) == ("non_assertive", subtype), label
    assert label.trigger is not None and label.trigger in caption and label.reason


EXISTENTIAL = [
    # A group of people asserted before: "the pedestrians" are among them.
    ("Several people walk along the street. Bags lie around, likely belonging to the "
     "pedestrians.", "pedestrians", 0),
    # The same person word refers back.
    ("A woman sits on a bench. A bag lies nearby, likely belonging to the woman.", "woman", 1),
    # A semicolon or a dash ends a hedge's reach; so does a reason clause.
    ("A car can be seen parked nearby; it appears that they have arrived together.", "car", 0),
    ("There appear to be many lamps – including some above tables with chairs.", "chairs", 0),
    ("They may have come late, since some chairs can be seen near the wall.", "chairs", 0),
    # A purpose does not reach into a place phrase below it.
    ("People gather for relaxation around furniture such as couches.", "couches", 0),
    # The hedge is on the activity; a non-restrictive relative clause places the object.
    ("The dog appears to be watching television, which is mounted on the wall.", "television",
     0),
    # A hedge on the kind of place, or the kind of an asserted thing.
    ("The field appears to be a desert landscape, with a few people scattered around.",
     "people", 0),
    ("The bus is parked outside, and it is likely a promotional vehicle.", "vehicle", 0),
    ("A train caboose sits on the tracks.", "train", 0),
    # A definite place under a hedged activity is presupposed.
    ("A cat might be hiding under the bed.", "bed", 0),
    # A causal "as" is not "as if".
    ("The street appears busy, as numerous people walk by.", "people", 0),
    # A depiction's "other" things are new things.
    ("A horse statue stands on the chair. There are also two other horses in the field.",
     "horses", 0),
    # An alternative whose other half is no category of its own.
    ("A person stands there, possibly a passenger or a pedestrian.", "pedestrian", 0),
    # A kite asserted before is the kite of "a day of kite flying".
    ("A boy flies a kite. They came for a day of kite flying.", "kite", 1),
]


@pytest.mark.parametrize("caption, word, occurrence", EXISTENTIAL)
def test_existential_forms(judge, caption, word, occurrence):
    label = label_of(judge, caption, word, occurrence)
    assert label.usage == "existential", label


NOT_OBJECT = [
    ("A train pulls a passenger car along the tracks.", "car"),
    ("A crowd waits in a hall, likely an airport or train station.", "train"),
    ("A landscape with human-made structures.", "human"),
]


@pytest.mark.parametrize("caption, word", NOT_OBJECT)
def test_not_object_forms(judge, caption, word):
    assert label_of(judge, caption, word).usage == "not_object"
