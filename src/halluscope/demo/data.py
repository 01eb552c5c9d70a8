"""The embedded default: captions written for this project, with COCO-style annotations.

>>> len(DEMO_IMAGES) >= 30
True

Each image lists the categories "annotated" in it; the captions mix grounded claims,
hallucinated claims and every kind of non-assertive mention (hedged, depictive, purpose,
negation, generic), plus words that are not objects ("bus stop", the colour orange).
"""

from __future__ import annotations

from typing import Any

# (image_id, annotated categories, caption)
DEMO_IMAGES: list[tuple[int, list[str], str]] = [
    (1, ["person", "bench"],
     "A man sits on a wooden bench in a park. There is an empty bench beside it for people to "
     "sit on."),
    (2, ["bus", "person"],
     "A red bus stops at a bus stop while people wait on the sidewalk. A car is parked nearby."),
    (3, ["dog", "frisbee"],
     "A dog leaps to catch a frisbee on the grass. There may be a cat hiding under the hedge."),
    (4, ["cake", "dining table", "knife"],
     "A birthday cake decorated with a dog sits on a dining table next to a knife."),
    (5, ["cell phone", "person"],
     "A woman holds a cell phone. No cars are visible in the quiet street."),
    (6, ["bench", "umbrella"],
     "An umbrella shades a bench. The area appears to be without any people."),
    (7, ["train", "person"],
     "People on the platform are waiting for the train as it pulls into the station."),
    (8, ["horse", "person"],
     "A girl stands in front of a poster of a horse. A horse grazes behind the fence."),
    (9, ["bottle", "refrigerator"],
     "A refrigerator with a rack designed to hold bottles. Two bottles stand on the top shelf."),
    (10, ["remote", "couch", "tv"],
     "A couch faces a television. On the cushion lies what is possibly a remote control."),
    (11, ["car", "truck"],
     "A truck drives down a road where cars usually drive, and a car follows it."),
    (12, ["person", "cup"],
     "A man, possibly a tourist, holds a cup of coffee in front of a fountain."),
    (13, ["dining table", "bowl"],
     "The table appears to be a dining table with a bowl of soup on it."),
    (14, ["bird"],
     "A bird, possibly a duck, floats on the pond."),
    (15, ["person"],
     "At least five people stand in line at the counter."),
    (16, ["cat", "bowl"],
     "A cat sits next to a bowl of food for the cat on the kitchen floor."),
    (17, ["person", "tie"],
     "A man wears a shirt with a cat print and a striped tie."),
    (18, ["car", "person"],
     "A boy plays with a toy car on the carpet while his mother watches."),
    (19, ["orange", "dining table"],
     "An orange sits on a dining table covered with an orange cloth."),
    (20, ["laptop", "cup"],
     "A laptop sits on the desk beside a cup. A mouse is next to the keyboard."),
    (21, ["stop sign"],
     "A stop sign stands at the corner, with a sign that says no dogs allowed."),
    (22, ["pizza", "person"],
     "A large pizza is ready to be enjoyed by someone. A fork and a knife lie beside it."),
    (23, ["boat"],
     "A boat floats on calm water. There are no people on board."),
    (24, ["skateboard", "person"],
     "A skateboarder rides a skateboard down a ramp, perhaps heading to the skate park."),
    (25, ["clock", "person"],
     "A clock tower rises above a square, a popular spot for tourists."),
    (26, ["sheep", "dog"],
     "A dog herds a flock of sheep across the hill, likely looking for a lost lamb."),
    (27, ["traffic light", "car"],
     "A traffic light turns red as cars queue at the crossing. A bicycle leans on the pole."),
    (28, ["dog", "hot dog"],
     "A dog stares at a hot dog on a plate, hoping for a bite."),
    (29, ["bed", "teddy bear"],
     "A teddy bear rests on a neatly made bed. The room seems to contain a chair as well."),
    (30, ["elephant", "person"],
     "An elephant walks along a dirt path, and a painting of a giraffe hangs on the gate."),
    (31, ["toilet", "sink"],
     "A small bathroom with a toilet and a sink. There is no bathtub and no towel."),
    (32, ["airplane"],
     "An airplane sits on the runway, waiting for passengers to board. A truck is parked by "
     "the wing."),
    (33, ["kite", "person"],
     "A child flies a kite on the beach while a dog runs along the shore."),
    (34, ["broccoli", "carrot"],
     "A plate of broccoli and carrots, with space left for a sandwich."),
    (35, ["vase", "potted plant"],
     "A vase of flowers sits next to a potted plant by the window."),
    (36, ["person", "skis"],
     "A skier in an orange jacket glides down the slope on skis past a ski lift."),
]



def demo_captions() -> list[dict[str, Any]]:
    return [{"image_id": image_id, "caption": caption} for image_id, _, caption in DEMO_IMAGES]


def demo_instances() -> dict[str, Any]:
    """A COCO instances JSON (images, annotations, categories) for the demo images."""
    from halluscope.vocab.coco import COCO_CATEGORIES

    category_ids = {name: index + 1 for index, name in enumerate(COCO_CATEGORIES)}
    annotations = []
    for image_id, categories, _ in DEMO_IMAGES:
        for name in categories:
            annotations.append({"id": len(annotations) + 1, "image_id": image_id,
                                "category_id": category_ids[name], "bbox": [0, 0, 10, 10],
                                "area": 100.0, "iscrowd": 0})
    return {
        "info": {"description": "halluscope embedded demo annotations"},
        "images": [{"id": image_id, "file_name": f"{image_id:012d}.jpg", "width": 640,
                    "height": 480} for image_id, _, _ in DEMO_IMAGES],
        "annotations": annotations,
        "categories": [{"id": i, "name": n, "supercategory": ""} for n, i in category_ids.items()],
    }
