"""The 80 COCO categories and the extra surface forms NAME-Bench lists for each (Appendix A).

>>> len(COCO_CATEGORIES), NAMEBENCH_FORMS["hot dog"]
(80, ['hotdog'])

This is the project's own transcription of the paper's appendix (data, not code). Regular plurals
are not listed here: `Vocabulary` adds them.
"""

from __future__ import annotations

COCO_CATEGORIES: tuple[str, ...] = (
    "person", "bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat",
    "traffic light", "fire hydrant", "stop sign", "parking meter", "bench", "bird", "cat", "dog",
    "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe", "backpack", "umbrella",
    "handbag", "tie", "suitcase", "frisbee", "skis", "snowboard", "sports ball", "kite",
    "baseball bat", "baseball glove", "skateboard", "surfboard", "tennis racket", "bottle",
    "wine glass", "cup", "fork", "knife", "spoon", "bowl", "banana", "apple", "sandwich", "orange",
    "broccoli", "carrot", "hot dog", "pizza", "donut", "cake", "chair", "couch", "potted plant",
    "bed", "dining table", "toilet", "tv", "laptop", "mouse", "remote", "keyboard", "cell phone",
    "microwave", "oven", "toaster", "sink", "refrigerator", "book", "clock", "vase", "scissors",
    "teddy bear", "hair drier", "toothbrush",
)

# Forms beyond the category name, as listed in Appendix A of the NAME-Bench paper. Irregular
# plurals are listed explicitly there ("people", "knives"); regular ones are generated.
NAMEBENCH_FORMS: dict[str, list[str]] = {
    "person": ["people", "man", "woman", "men", "women", "boy", "girl", "child", "children", "kid",
               "guy", "lady", "human", "someone", "pedestrian", "passerby"],
    "bicycle": ["bike", "cyclist"],
    "car": ["sedan", "vehicle", "automobile", "taxi", "cab", "suv", "auto"],
    "motorcycle": ["motorbike", "moped", "scooter"],
    "airplane": ["aeroplane", "plane", "jet", "aircraft"],
    "bus": [],
    "train": ["locomotive"],
    "truck": ["lorry", "pickup"],
    "boat": ["ship", "vessel", "canoe", "kayak"],
    "traffic light": ["stoplight", "signal light"],
    "fire hydrant": ["hydrant"],
    "stop sign": [],
    "parking meter": [],
    "bench": [],
    "bird": ["sparrow", "pigeon", "crow", "eagle", "parrot", "duck", "goose", "swan", "seagull"],
    "cat": ["kitten", "kitty", "feline"],
    "dog": ["puppy", "canine"],
    "horse": ["pony", "stallion", "mare"],
    "sheep": ["lamb", "ram", "ewe"],
    "cow": ["cattle", "calf", "bull", "ox"],
    "elephant": [],
    "bear": ["grizzly"],
    "zebra": [],
    "giraffe": [],
    "backpack": ["rucksack", "knapsack"],
    "umbrella": ["parasol"],
    "handbag": ["purse", "tote", "satchel"],
    "tie": ["necktie", "bowtie"],
    "suitcase": ["luggage", "baggage"],
    "frisbee": ["disc"],
    "skis": ["ski"],
    "snowboard": [],
    "sports ball": ["soccer ball", "tennis ball", "basketball", "baseball", "football",
                    "volleyball"],
    "kite": [],
    "baseball bat": [],
    "baseball glove": ["baseball mitt"],
    "skateboard": [],
    "surfboard": [],
    "tennis racket": ["tennis racquet", "racket", "racquet"],
    "bottle": [],
    "wine glass": ["wineglass", "goblet"],
    "cup": ["mug"],
    "fork": [],
    "knife": ["knives"],
    "spoon": [],
    "bowl": [],
    "banana": [],
    "apple": [],
    "sandwich": ["sub"],
    "orange": [],
    "broccoli": [],
    "carrot": [],
    "hot dog": ["hotdog"],
    "pizza": [],
    "donut": ["doughnut"],
    "cake": ["cupcake"],
    "chair": ["armchair", "stool"],
    "couch": ["sofa", "loveseat"],
    "potted plant": ["houseplant", "plant pot"],
    "bed": [],
    "dining table": ["dinner table", "kitchen table"],
    "toilet": ["commode"],
    "tv": ["television", "tv set"],
    "laptop": ["notebook computer"],
    "mouse": ["computer mouse"],
    "remote": ["remote control"],
    "keyboard": [],
    "cell phone": ["cellphone", "mobile phone", "smartphone", "phone"],
    "microwave": [],
    "oven": ["stove"],
    "toaster": [],
    "sink": ["washbasin"],
    "refrigerator": ["fridge"],
    "book": [],
    "clock": [],
    "vase": [],
    "scissors": [],
    "teddy bear": ["teddy"],
    "hair drier": ["hair dryer", "hairdryer", "blow dryer"],
    "toothbrush": [],
}

# Categories matched but excluded from NAME-Bench (the colour is too often read as the fruit).
NAMEBENCH_EXCLUDED: frozenset[str] = frozenset({"orange"})

# Words whose automatic plural would be wrong or would collide with another word; they are
# already plural, uncountable, or their plural is listed explicitly.
NO_AUTOMATIC_PLURAL: frozenset[str] = frozenset({
    "people", "men", "women", "children", "knives", "skis", "scissors", "cattle", "luggage",
    "baggage", "broccoli", "someone", "sheep",
})
