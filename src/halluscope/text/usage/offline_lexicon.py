"""Word lists the offline usage judge reads (data, not code): cues, anchors and exceptions.

>>> "possibly" in HEDGE_ADVERBS and "poster" in DEPICTION_NOUNS
True
>>> sorted(verb_forms("wait"))
['wait', 'waited', 'waiting', 'waits']

Verbs are listed in their base form; `verb_forms` adds the regular inflections because the judge
runs spaCy without its lemmatizer (the lemmatizer and attribute ruler cost about half the parse
time). Irregular forms are listed explicitly.
"""

from __future__ import annotations

import re

# A verb of one syllable ending in one vowel and one consonant doubles it: "sit" -> "sitting".
_ONE_SYLLABLE_CVC = re.compile(r"[^aeiou]*[aeiou][bdgklmnprt]")


def verb_forms(*bases: str) -> frozenset[str]:
    """Base forms plus -s, -ed and -ing forms (e-drop, y to i, the final consonant of one
    syllable doubled; irregular past forms are listed where used).

    >>> sorted(verb_forms("imply", "shop"))
    ['implied', 'implies', 'imply', 'implying', 'shop', 'shopped', 'shopping', 'shops']
    """
    forms: set[str] = set()
    for base in bases:
        if len(base) > 2 and base.endswith("y") and base[-2] not in "aeiou":
            forms.update({base, base[:-1] + "ies", base[:-1] + "ied", base + "ing"})
            continue
        stem = base[:-1] if base.endswith("e") and not base.endswith("ee") else base
        if _ONE_SYLLABLE_CVC.fullmatch(base):
            stem = base + base[-1]  # "sitting", "shopped" (not "siting", "shoped")
        third = base + "es" if base.endswith(("s", "sh", "ch", "x")) else base + "s"
        forms.update({base, third, stem + "ed" if not base.endswith("e") else base + "d",
                      stem + "ing"})
    return frozenset(forms)


# --- hedging (speculation) -------------------------------------------------------------------
# Adverbs/adjectives that mark the speaker's uncertainty about what follows them.
HEDGE_ADVERBS: frozenset[str] = frozenset({
    "possibly", "perhaps", "maybe", "probably", "likely", "presumably", "potentially",
    "seemingly", "apparently", "conceivably", "supposedly", "allegedly", "perchance",
    "ostensibly", "purportedly", "plausibly", "reportedly",
})
# Passives of report and belief that make their subject's presence hearsay: "a motorcycle is
# believed to be pinned beneath the bus", "several people are feared trapped".
REPORTING_PASSIVES: frozenset[str] = frozenset({
    "believed", "thought", "feared", "said", "reported", "suspected", "presumed", "rumored",
    "rumoured", "alleged"})
# Adjectives of a hedged clause: "it is likely that a dog ...", "it is possible that ...".
HEDGE_ADJECTIVES: frozenset[str] = frozenset({"likely", "possible", "probable", "plausible",
                                              "conceivable", "unclear", "uncertain"})
# Modal auxiliaries of epistemic possibility. "can" is not one: "a cat can be seen" is how VLMs
# assert presence.
HEDGE_MODALS: frozenset[str] = frozenset({"may", "might", "could"})
# Raising / perception verbs that present their complement as an impression ("appears to be a
# dog", "looks like a cat", "resembles a dog").
HEDGE_VERBS: frozenset[str] = verb_forms("appear", "seem", "resemble") | {"looks", "look",
                                                                         "looked", "looking"}
# Perception participles after which a modal is the VLM idiom for presence ("could be seen").
PERCEPTION_PARTICIPLES: frozenset[str] = frozenset({"seen", "spotted", "observed", "noticed",
                                                    "found", "visible"})
# Subjects whose hedged predicate classifies the whole picture, not an object in it: "the scene
# appears to be a kitchen with a refrigerator" hedges the kind of scene; the refrigerator listed
# in it is still asserted.
SCENE_NOUNS: frozenset[str] = frozenset({
    "scene", "setting", "image", "picture", "photo", "photograph", "environment", "atmosphere",
    "location", "place", "area", "mood", "background", "foreground", "view", "room", "space",
    "event", "situation", "moment", "occasion", "overall",
})

# Kinds of place a hedge can classify ("the field appears to be a desert landscape, with a few
# people"): the things listed with it are still asserted.
PLACE_KIND_NOUNS: frozenset[str] = SCENE_NOUNS | frozenset({
    "landscape", "terrain", "neighborhood", "neighbourhood", "district", "region", "countryside",
    "venue", "facility", "site", "zone", "settlement", "village", "town", "city"})

# --- negation ---------------------------------------------------------------------------------
# Determiner-like cues that deny the noun phrase they open ("no cars", "not a single car").
NEGATIVE_DETERMINERS: frozenset[str] = frozenset({"no", "neither", "nor"})
# Adverbial negation on a predicate ("is not visible", "there isn't a car", "never").
VERB_NEGATIONS: frozenset[str] = frozenset({"not", "n't", "n’t", "never"})
# "not only/just X" and "not far from X" do not deny X.
NOT_FOLLOWERS_THAT_CANCEL: frozenset[str] = frozenset({"only", "just", "merely", "far", "too",
                                                       "quite", "very", "necessarily",
                                                       "mistaken", "sure", "certain"})
# Quantities a negation only limits, leaving some there: "not many cars", "no more than two
# people", "not all of the chairs".
LIMITED_QUANTITIES: frozenset[str] = frozenset({"many", "much", "all", "every"})
COMPARATIVE_QUANTITIES: frozenset[str] = frozenset({"more", "fewer", "less"})  # (+ "than")
# Prepositions and nouns whose object is denied: "without any people", "the absence of cars".
NEGATIVE_PREPOSITIONS: frozenset[str] = frozenset({"without"})
NEGATIVE_NOUNS: frozenset[str] = frozenset({"absence", "lack"})
NEGATIVE_VERBS: frozenset[str] = verb_forms("lack") | {"devoid", "absent"}
# Phrases that put one thing in another's place, denying the other: "a carton instead of a
# bottle", "a spoon rather than a fork".
REPLACING_PHRASES: frozenset[tuple[str, str]] = frozenset({("instead", "of"), ("rather", "than")})
# Adjectives whose "of"-object is absent: "a street empty of cars", "a beach free of people".
EMPTY_OF_ADJECTIVES: frozenset[str] = frozenset({"empty", "free", "clear", "bare"})
# Predicates whose negation denies their subject's presence ("no people are visible", "the cat
# is not present").
# The forms of "be" (the lemmatizer is off: forms are matched as written).
BE_FORMS: frozenset[str] = frozenset({"be", "is", "are", "was", "were", "being", "been"})
EXISTENCE_PREDICATES: frozenset[str] = frozenset({
    "visible", "present", "seen", "shown", "found", "there", "around", "in", "spotted", "observed",
    "noticed", "apparent", "evident", "depicted", "pictured", "included", "be", "is", "are",
    "was", "were", "exist", "exists", "captured", "remain", "remains", "remained",
})

# --- depiction --------------------------------------------------------------------------------
# Nouns whose "of"-complement, "with"-complement or compound modifier is depicted content.
DEPICTION_NOUNS: frozenset[str] = frozenset({
    "picture", "pictures", "painting", "paintings", "poster", "posters", "drawing", "drawings",
    "image", "images", "photo", "photos", "photograph", "photographs", "print", "prints",
    "sculpture", "sculptures", "statue", "statues", "figurine", "figurines", "replica", "replicas",
    "logo", "logos", "sign", "signs", "sticker", "stickers", "decal", "decals", "illustration",
    "illustrations", "portrait", "portraits", "mural", "murals", "graffiti", "cartoon", "cartoons",
    "silhouette", "silhouettes", "toy", "toys", "character", "characters", "icon", "icons", "emblem", "emblems", "symbol",
    "symbols", "design", "designs", "pattern", "patterns", "carving", "carvings", "artwork",
    "artworks", "depiction", "depictions", "rendering", "banner", "banners", "billboard",
    "billboards", "advertisement", "advertisements", "ad", "ads", "magnet", "magnets",
    "ornament", "ornaments", "cutout", "cutouts", "doll", "dolls", "plush", "plushie",
    "plushies", "wallpaper", "wallpapers", "mobile", "mobiles", "pic", "pics", "canvas",
    "canvases", "tattoo", "tattoos",
    "sketch", "sketches", "mosaic", "postcard", "postcards", "puppet", "puppets", "topper",
    "toppers", "motif", "motifs", "stencil", "engraving", "shape", "shapes", "figure", "figures",
    "model", "models", "costume", "costumes", "balloon", "balloons", "video", "videos", "clip",
    "clips", "footage", "menu", "menus", "chalkboard", "chalkboards", "pictogram", "pictograms",
    "doodle", "doodles", "snapshot", "snapshots", "statuette", "statuettes", "caricature",
    "caricatures", "monument", "monuments", "memorial", "memorials", "bust", "busts", "relief",
    "leaflet", "leaflets", "brochure", "brochures", "stamp", "stamps",
    "reliefs", "tapestry", "tapestries", "embroidery", "effigy", "effigies", "likeness",
    "outline", "outlines", "casting", "castings", "totem", "totems", "marionette", "marionettes",
    "topiary", "topiaries", "decoy", "decoys", "piñata", "piñatas", "pinata", "pinatas",
    "graphic", "graphics", "screensaver", "screensavers", "slideshow", "slideshows",
    # rock art: "petroglyphs on the canyon wall depict bighorn sheep"
    "petroglyph", "petroglyphs", "pictograph", "pictographs", "hieroglyph", "hieroglyphs",
    "cut-out", "cut-outs",
    # printmaking and wall painting, and their plurals: "a woodcut of a crow", "the fresco shows"
    "fresco", "frescoes", "frescos", "woodcut", "woodcuts", "lithograph", "lithographs",
    "etching", "etchings", "engravings", "stencils", "mosaics", "watercolor", "watercolors",
    "watercolour", "watercolours", "printout", "printouts", "polaroid", "polaroids",
    # crowd and merchandise pictures: "a tifo of a zebra", "a placard showing a racket"
    "tifo", "tifos", "placard", "placards", "bobblehead", "bobbleheads", "animation",
    "animations", "advert", "adverts",
    # a snow globe's miniature scene
    "globe", "globes", "snowglobe", "snowglobes",
})
# Things whose inside is a made scene: "Inside the snow globe there is a tiny bench".
MINIATURE_SCENE_NOUNS: frozenset[str] = frozenset({"globe", "globes", "snowglobe", "snowglobes",
                                                   "diorama", "dioramas", "dollhouse",
                                                   "dollhouses"})
# Of these, the ones VLM captions also use for the captioned image itself ("The image shows ...",
# "a black and white photo of a street"): depictive only when they are things inside the scene.
# A video model's captioned clip too: "The clip shows a man wrapping a present".
FRAME_NOUNS: frozenset[str] = frozenset({"image", "images", "picture", "pictures", "photo",
                                         "photos", "photograph", "photographs", "snapshot",
                                         "snapshots", "pic", "pics", "video", "videos", "clip",
                                         "clips", "footage"})
# Verbs of a barrier keeping something out, with "out", "away", "off" or "from" ("the bollards
# keep vehicles out", "a fence to prevent dogs from leaving").
KEEPING_OUT_VERBS: frozenset[str] = verb_forms("keep", "prevent", "stop", "block", "bar",
                                               "deter") | {"kept", "stopped", "barred"}
# Parts of a picture that a fronted place can name: "In the lower corner of the painting, ...".
PICTURE_PARTS: frozenset[str] = frozenset({"corner", "corners", "center", "centre", "middle",
                                           "background", "foreground", "part", "section",
                                           "half", "top", "bottom"})
# Depiction nouns whose "of" does not introduce content ("a sign of life", "the shape of a cake").
NOT_CONTENT_OF: frozenset[str] = frozenset({"sign", "signs", "shape", "shapes", "figure",
                                            "figures", "design", "designs", "pattern", "patterns"})
# Stories whose "about"-object is their content: "a documentary about elephants", "a storybook
# about a lost dog".
STORY_NOUNS: frozenset[str] = frozenset({
    "program", "programs", "programme", "programmes", "documentary", "documentaries", "show",
    "shows", "movie", "movies", "film", "films", "book", "books", "storybook", "storybooks",
    "story", "stories", "video", "videos", "cartoon", "cartoons", "episode", "article",
    "magazine", "poster", "posters", "song", "game", "report", "reports", "news", "broadcast",
    "call", "calls", "match", "matches", "race", "concert"})
# Media that play what they show: "a television playing a cartoon of a dog" (a shirt does not
# "play": "a man in a red shirt playing frisbee").
SCREEN_NOUNS: frozenset[str] = frozenset({
    "screen", "screens", "display", "displays", "monitor", "monitors", "television", "tv",
    "televisions", "tvs"})
SCREENING_VERBS: frozenset[str] = verb_forms("play", "stream")
# What a screen plays, whose part is shown, not there: "the ball is part of the broadcast" (not
# "part of the game", nor "part of the image", the captioned one, nor "part of the show", which
# can be a horse show).
PROGRAMME_NOUNS: frozenset[str] = frozenset({
    "broadcast", "broadcasts", "program", "programs", "programme", "programmes",
    "movie", "movies", "film", "films", "documentary", "documentaries", "cartoon", "cartoons",
    "commercial", "commercials", "advertisement", "advertisements", "ad", "ads", "screensaver",
    "slideshow"})
APPEAR_FORMS: frozenset[str] = verb_forms("appear")
# What a user does on a screen: "a man taps on the screen" is there.
SCREEN_USING_VERBS: frozenset[str] = verb_forms(
    "tap", "swipe", "type", "play", "click", "press", "touch", "draw", "write", "scroll",
    "point", "focus", "look", "stare", "gaze", "work", "game", "rely", "concentrate")
# Surfaces whose "on which" clause is what they show: "a screen on which a man is surfing".
SHOWING_SURFACES: frozenset[str] = SCREEN_NOUNS - {"television", "tv", "televisions", "tvs"} | {
    "canvas", "canvases", "billboard", "billboards", "chalkboard", "chalkboards", "whiteboard"}
# Objects with a surface that shows content: subjects of depicting verbs ("a TV showing a dog",
# "a shirt featuring a cat") and places content sits on ("a man on the screen").
MEDIUM_NOUNS: frozenset[str] = SCREEN_NOUNS | frozenset({
    "shirt", "shirts", "t-shirt", "poster", "posters", "sign", "signs", "billboard", "billboards",
    "banner", "banners", "mural", "canvas", "page", "pages", "cover", "painting", "paintings",
    "picture", "pictures", "drawing", "drawings", "label", "labels", "magazine", "newspaper",
    "book", "books", "magazines", "box", "card", "cards", "calendar", "sticker", "stickers",
    "flag", "flags", "logo",
    # What a screen plays: "a documentary featuring a bear".
    "documentary", "documentaries", "movie", "movies", "film", "films", "video", "videos",
    "cartoon", "cartoons", "commercial", "commercials", "advertisement", "advertisements", "ad",
    "ads", "program", "programs", "programme", "programmes", "show", "shows", "broadcast",
    "broadcasts", "news", "report", "reports", "photo", "photos", "photograph", "photographs",
    "tapestry",
    # boards, plaques and painted surfaces at events: "the scoreboard shows a baseball", "race
    # bibs show a dog's face", "face paint shows a ball", "the car's livery features a bull"
    "scoreboard", "scoreboards", "jumbotron", "plaque", "plaques", "bib", "bibs", "paint",
    "livery", "backdrop", "backdrops", "sampler", "samplers",
})
# What a statue or a toy does with its hands is part of it: "the statue is holding a pizza".
HOLDING_VERBS: frozenset[str] = verb_forms("hold", "carry", "wear", "clutch", "grip", "hug",
                                          "balance", "cradle", "grasp") | {
    "held", "worn", "carried"}
# "taking a picture of a pizza" photographs a real pizza.
PHOTOGRAPHING_VERBS: frozenset[str] = verb_forms("take", "snap", "capture", "shoot") | {
    "took", "taken", "shot"}
# Made things that are animals or people only as likenesses: "a mechanical bear", "a chocolate
# rabbit" (never "a chocolate cake" as a cake's likeness: animates only, as `MATERIAL_MODIFIERS`).
ANIMAL_LIKENESS_MODIFIERS: frozenset[str] = frozenset({
    "mechanical", "robotic", "animatronic", "origami", "chocolate", "wax", "knitted", "crocheted",
    "candy", "marzipan", "fondant", "sugar", "gingerbread"})
# Modifiers that set a thing apart from its likenesses: "a real cat lies next to the poster".
REAL_MODIFIERS: frozenset[str] = frozenset({"real", "actual", "live", "real-life"})
# Modifiers that make the noun a representation ("a toy car", "a stuffed dog", "a cartoon cat").
# What figures are sculpted or cast from: "a fiberglass cow", "a papier-mâché horse".
SCULPTING_MATERIALS: frozenset[str] = frozenset({"fiberglass", "fibreglass", "clay", "marble",
                                                 "wax", "resin", "origami", "marzipan",
                                                 "granite", "brass", "concrete", "mâché",
                                                 "mache"})
FAKE_MODIFIERS: frozenset[str] = frozenset({
    "toy", "toys", "stuffed", "plush", "fake", "faux", "artificial", "cartoon", "replica",
    "imitation", "inflatable", "animated", "figurine", "decorative", "ceramic", "porcelain",
    "wooden", "plastic", "paper", "cardboard", "metal", "stone", "bronze", "glass", "miniature",
    "model", "printed", "painted", "drawn", "sculpted", "carved", "rubber", "embossed",
    "engraved", "etched", "embroidered", "stitched", "crocheted", "knitted", "lego", "felt",
    "pretend", "illustrated", "stenciled", "stencilled", "sketched", "piped",
    "iron", "steel", "plaster", "copper", "tin", "foam", "vinyl", "aluminum", "aluminium",
    "terracotta", "fabric", "plushie", "towel", "carousel", "rocking", "decoy", "enamel",
    "glitter",
    # drawing media: "a chalk giraffe", "graffiti parrots", "a watercolor boat"
    "chalk", "graffiti", "watercolor", "watercolour", "crayon",
}) | ANIMAL_LIKENESS_MODIFIERS | SCULPTING_MATERIALS
# Of those, the ones that make a model only of things: "a miniature train" is a model, "a
# miniature horse" a breed; "a model airplane" a model, "a model" posing a person.
INANIMATE_FAKE_MODIFIERS: frozenset[str] = frozenset({"miniature", "model", "scale", "play",
                                                      "cast"})  # ("a die-cast bus")
# Material modifiers only make a representation of animals and people ("a wooden horse" vs. "a
# wooden chair", "a plastic bottle").
MATERIAL_MODIFIERS: frozenset[str] = frozenset({"ceramic", "porcelain", "wooden", "plastic",
                                                "paper", "cardboard", "metal", "stone", "bronze",
                                                "glass", "decorative", "stuffed", "rubber",
                                                "plush", "felt", "iron", "steel", "plaster",
                                                "copper", "tin", "foam", "vinyl", "aluminum",
                                                "aluminium", "terracotta", "fabric", "plushie",
                                                "towel", "carousel", "rocking", "enamel",
                                                "glitter"}) | \
    ANIMAL_LIKENESS_MODIFIERS | SCULPTING_MATERIALS
# Materials no real food is made of: "a plaster pizza", "a felt carrot" are likenesses ("a
# chocolate donut" is a donut).
INEDIBLE_MATERIALS: frozenset[str] = MATERIAL_MODIFIERS - {
    "decorative", "stuffed", "chocolate", "candy", "marzipan", "fondant", "sugar", "mechanical",
    "robotic", "animatronic"}
# Materials no real vehicle is made of: "a fondant train", "a plastic motorcycle", "a cardboard
# car" ("a steel train", "a metal boat" are vehicles; a boat can be wooden or plastic).
VEHICLE_LIKENESS_MATERIALS: frozenset[str] = frozenset({
    "plastic", "wooden", "ceramic", "porcelain", "paper", "cardboard", "plush", "stuffed",
    "felt", "knitted", "crocheted", "chocolate", "candy", "sugar", "marzipan", "fondant", "wax",
    "clay", "plaster", "origami", "lego", "bronze", "marble", "gingerbread", "terracotta"})
REAL_BOAT_MATERIALS: frozenset[str] = frozenset({"plastic", "wooden"})
# Sugar pastes that only model things: "fondant baseballs", "a marzipan clock" (not "sugar", as
# in "a sugar bowl", nor "chocolate", as in "a chocolate cake").
MODELLING_PASTES: frozenset[str] = frozenset({"fondant", "marzipan", "gumpaste"})
# Modifiers that make a picture of a living thing but only decorate any other thing: "an
# embossed horse" is a picture, "an engraved clock" a clock, "an embroidered cat" a stitched
# picture and "an embroidered tie" a tie. ("painted" only before a material: "a teal-painted
# wooden bench" is a bench, "a painted bicycle on the window" a picture.)
DECORATING_MODIFIERS: frozenset[str] = frozenset({"embossed", "engraved", "etched",
                                                  "embroidered", "stitched", "crocheted",
                                                  "knitted"})
ANIMATE_CATEGORIES: frozenset[str] = frozenset({
    "person", "bird", "cat", "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra",
    "giraffe",
})
# What a pictured rider sits on, shown with the rider: "a drawing of a man on a skateboard" (a
# picture of a dragon on a skateboard can be a sticker on a real one).
RIDDEN_CATEGORIES: frozenset[str] = frozenset({
    "skateboard", "surfboard", "snowboard", "skis", "bicycle", "motorcycle", "boat"})
# Verbs that put their "with"-object or direct object on a surface as decoration or text.
DECORATION_VERBS: frozenset[str] = verb_forms(
    "decorate", "adorn", "paint", "print", "embroider", "emblazon", "engrave", "stamp", "label",
    "illustrate", "pattern", "emboss", "etch", "stencil", "pipe", "ice", "knit", "tool",
    "weave", "stitch", "airbrush", "applique") | {
    "painted", "printed", "stencilled", "woven", "appliquéd"}
# Things whose decorations are pictures, whatever they show: "a wooden sign decorated with a
# comb and a pair of scissors".
SIGN_NOUNS: frozenset[str] = frozenset({
    "sign", "signs", "poster", "posters", "banner", "banners", "logo", "logos", "billboard",
    "billboards", "flag", "flags", "label", "labels", "sticker", "stickers", "card", "cards"})
# Verbs that put a picture on a surface ("a cat painted on the wall"; flowers "adorned across
# the corners" are real).
PICTURE_ON_VERBS: frozenset[str] = verb_forms(
    "paint", "print", "embroider", "emblazon", "engrave", "stamp", "illustrate", "draw",
    "stencil", "sketch", "etch", "carve", "doodle", "airbrush", "stitch", "knit", "emboss") | {
    "stencilled",
    "painted", "printed", "drawn"}
# Surfaces a thing painted "on" is a picture on: "painted a train on its side" (a man "painting
# a boat on the beach" paints a real boat).
PAINTED_SURFACES: frozenset[str] = frozenset({
    "wall", "walls", "side", "sides", "canvas", "door", "doors", "fence", "board", "sidewalk",
    "pavement", "front", "back", "window", "windows", "hood", "lid", "cover", "face", "cheek",
    "arm", "shirt", "paper", "page", "ceiling", "floor", "road", "street", "surface"})
# Decoration participles that always put a picture on the surface ("printed with umbrellas"),
# unlike "decorated with flowers" (real flowers).
PRINTING_PARTICIPLES: frozenset[str] = frozenset({"printed", "embroidered", "stamped",
                                                  "painted", "emblazoned", "engraved",
                                                  "patterned", "embossed", "etched",
                                                  "stenciled", "stencilled", "woven",
                                                  "stitched", "airbrushed", "appliqued",
                                                  "appliquéd"})
# Verbs of depicting whose object is content when their subject is a medium (not the captioned
# image): "a TV showing a dog", "a shirt featuring a cat", "a sign that says no dogs".
DEPICTING_VERBS: frozenset[str] = verb_forms(
    "depict", "portray", "show", "display", "feature", "say", "read", "spell", "illustrate",
    "advertise", "picture", "promote", "prohibit", "forbid", "ban", "warn", "play",
    "stream", "represent", "render") | {
    "shown", "said", "written", "writes", "write", "read", "banned", "banning", "bearing"}
# Of those, the ones only a made thing does, whatever it is: "a wooden puzzle depicting a
# zebra", "a mug portraying a cat" (a screen "shows", but so does a person).
PICTURING_VERBS: frozenset[str] = verb_forms("depict", "portray", "illustrate")
# What people read (a sign "reading" shows text; someone "reading a book" is a reader).
READING_MATTER: frozenset[str] = frozenset({"book", "books", "newspaper", "newspapers",
                                            "magazine", "magazines", "novel", "novels", "menu",
                                            "menus", "letter", "letters", "map", "maps",
                                            "paper", "papers"})
SHOWING_PARTICIPLES: frozenset[str] = frozenset({
    "showing", "depicting", "portraying", "displaying", "featuring", "illustrating",
    "picturing", "advertising", "playing", "streaming", "listing"})
# Passive participles that put their noun on a medium: "a dog displayed on the laptop's screen".
DISPLAYED_PARTICIPLES: frozenset[str] = frozenset({"displayed", "shown", "pictured", "featured",
                                                   "depicted", "projected"})
# Passives of depicting whose subject is a picture's content once placed on something: "a train
# is depicted along its side" ("pictured" and "shown" also say what a photo shows).
DEPICTED_PASSIVES: frozenset[str] = frozenset({"depicted", "portrayed", "illustrated", "drawn",
                                               "sketched", "represented", "rendered"})
# Prepositions that place such a picture on a thing or give it a form ("along its side", "in
# sculptural form"; "in the image" names the captioned frame and is left out by the caller).
DEPICTION_PLACING_PREPOSITIONS: frozenset[str] = frozenset({"on", "along", "across", "in",
                                                            "inside", "onto", "as"})
# What people do with shown content: "a TV showing the game the man is playing" (he is real).
VIEWING_VERBS: frozenset[str] = verb_forms("watch", "play", "view", "enjoy", "follow") | {
    "seen", "saw", "watched", "played", "viewed"}
# Verbs of watching that take a small clause: "watching trains pass by", "see a dog run".
WATCHING_VERBS: frozenset[str] = verb_forms("watch", "see", "observe", "hear", "notice") | {
    "saw", "seen", "heard"}
# Verbs that take in a scene through "to" or "at": "listening to birds singing in the trees".
ATTENDING_VERBS: frozenset[str] = verb_forms("listen", "look", "stare", "gaze")
# Perfect participles after which the subject is gone ("the train has departed"), and those
# that need "already" ("the sandwich has already been eaten"; "has left" can still be in view).
GONE_PARTICIPLES: frozenset[str] = frozenset({"departed", "vanished", "disappeared", "gone"})
CONSUMED_PARTICIPLES: frozenset[str] = frozenset({"eaten", "consumed", "finished", "devoured",
                                                  "left", "driven", "flown", "sold"})
# Words that make "not visible" a matter of how well it shows: "not clearly visible".
PARTIAL_VIEW_WORDS: frozenset[str] = frozenset({
    "clearly", "fully", "completely", "entirely", "well", "easily", "directly", "very", "much",
    "quite", "always", "immediately", "readily"})
TEXT_VERBS: frozenset[str] = verb_forms("say", "read", "spell") | {"said", "written", "write",
                                                                   "writes", "wrote"}
# Media whose "on"-object is shown content: "a man on the screen" (not "a cat on the TV").
ON_MEDIUM_NOUNS: frozenset[str] = frozenset({"screen", "screens", "display", "poster", "posters",
                                             "billboard", "billboards", "mural", "canvas",
                                             "page", "pages", "cover", "painting", "paintings",
                                             "shirt", "t-shirt", "label"})
# Things that carry a print, with it on them: "a mug with a cat on it", "a sign with a bicycle
# on it" (not a box or a cake: "a cake with a figurine on it" holds a real figurine).
PRINT_BEARING_NOUNS: frozenset[str] = frozenset({
    "sign", "signs", "sticker", "stickers", "flag", "flags", "banner", "banners", "mug", "mugs",
    "jersey", "hoodie", "sweatshirt", "sweater", "tote", "logo", "shirts", "t-shirts", "apron",
    "aprons", "placemat", "placemats", "pajamas", "pyjamas", "onesie", "bib", "bibs"})
# Packaging carries a print on a face, not on "it": "a cereal box with a cow on the front" (but
# "a box with a cat on it" can hold a real cat).
PACKAGING_NOUNS: frozenset[str] = frozenset({"box", "boxes", "carton", "cartons", "package",
                                             "packages", "packet", "packets", "wrapper",
                                             "wrappers", "can", "cans", "tin", "tins", "jar",
                                             "jars"})
PACKAGING_FACE_WORDS: frozenset[str] = frozenset({"front", "back", "lid", "label", "side"})
# A book's or a card's faces (a cat "on" a book can be lying on it).
COVER_FACE_WORDS: frozenset[str] = frozenset({"cover", "covers", "front", "back", "page",
                                              "pages", "spine"})
# What "on" points back to in "a shirt with a zebra on it / on the front".
MEDIUM_FACE_WORDS: frozenset[str] = frozenset({"it", "them", "front", "back", "chest", "face",
                                               "lid"})
# Of those, what people wear: "a cat on a shirt" is a print, "a man in a red shirt" wears it.
WORN_MEDIUM_NOUNS: frozenset[str] = frozenset({"shirt", "t-shirt", "cover"})
# Verbs that put a picture up as a thing ("a photo of a dog is taped to the door").
PLACING_VERBS: frozenset[str] = verb_forms("hang", "tape", "pin", "stick", "attach", "mount",
                                           "post", "affix", "glue", "nail", "frame") | {
    "hung", "stuck", "pinned"}
# Verbs that place a thing when they take a place phrase ("sits on the desk").
RESTING_VERBS: frozenset[str] = verb_forms("sit", "rest", "lie", "lean", "stand", "prop",
                                           "place", "put", "display") | {
    "is", "are", "was", "were", "sat", "lay", "lying", "stood", "propped"}
# Prepositions of a thing's place on or by a surface ("in" and "at" also say how a picture is:
# "the photo is in black and white").
SURFACE_PREPOSITIONS: frozenset[str] = frozenset({"on", "above", "below", "under", "beside",
                                                  "next", "near", "against", "over", "atop"})
# Surfaces a picture hangs on: "a picture of a cat on the wall" is a thing in the scene.
HANGING_SURFACES: frozenset[str] = frozenset({
    "wall", "walls", "fridge", "refrigerator", "door", "board", "easel", "mantel", "mantle",
    "billboard"})
# Participles that put a picture up somewhere: what follows them is where it hangs.
HUNG_PARTICIPLES: frozenset[str] = frozenset({"hanging", "hung", "mounted", "pinned", "taped",
                                              "posted", "affixed"})
# Depiction nouns that also name a thing not yet made out: "the shape could be a dog" hedges.
VAGUE_DEPICTION_NOUNS: frozenset[str] = frozenset({"shape", "shapes", "figure", "figures",
                                                   "silhouette", "silhouettes", "outline",
                                                   "outlines"})
# Nouns of animals in general, which a material makes likenesses of: "origami animals".
ANIMAL_NOUNS: frozenset[str] = frozenset({"animal", "animals", "creature", "creatures"})
# Nouns general enough to be re-described by a hedge even though the vocabulary maps them to a
# category ("a vehicle, possibly a truck": a vehicle is asserted).
GENERAL_ANCHORS: frozenset[str] = frozenset({"vehicle", "vehicles", "animal", "animals",
                                             "device", "devices"})
# Words for any person: "the person" or "the people" can refer back to "a man"; "the women"
# after "a man" introduce other people.
GENERAL_PERSON_NOUNS: frozenset[str] = frozenset({
    "person", "persons", "people", "individual", "individuals", "human", "humans", "figure",
    "figures", "someone", "somebody", "everyone", "group"})
# Pronouns for no one in particular: "within reach of anyone at the table".
INDEFINITE_PRONOUNS: frozenset[str] = frozenset({"someone", "somebody", "anyone", "anybody",
                                                 "everyone", "everybody"})
# Verbs of a counterfactual wish: "I wish I had a bike here".
WISHING_VERBS: frozenset[str] = verb_forms("wish")
# Verbs of an errand: "Task: bring a fork to table 4", "Pack a small knife".
FETCHING_VERBS: frozenset[str] = frozenset({"bring", "fetch", "retrieve", "get", "grab", "find",
                                            "locate", "collect", "deliver", "pack", "buy"})
# Sets whose items a compound names: "a decal set", "a sticker sheet", "a poster series".
SET_NOUNS: frozenset[str] = frozenset({"set", "sets", "sheet", "sheets", "series", "collection",
                                       "collections", "pack", "packs", "kit", "kits"})
# Modifiers that make any board or panel a medium: "an advertising panel showing a surfboard",
# "a digital board displaying a cat".
MEDIUM_MAKING_MODIFIERS: frozenset[str] = frozenset({
    "advertising", "advertisement", "ad", "digital", "electronic", "led", "lcd", "video",
    "information", "info", "welcome", "notice"})
# Kinds of published image a caption can open with: "Listing photo of a sofa", "Stock shot of
# ...": the captioned image itself.
PUBLISHED_IMAGE_KINDS: frozenset[str] = frozenset({
    "listing", "product", "stock", "catalog", "catalogue", "archive", "archival", "press",
    "promo", "promotional", "marketing", "rental", "sale", "news", "editorial"})
# Anchors too vague to assert a kind: "a large object, possibly a piece of luggage" guesses the
# object's category, so the luggage is hedged ("a bird, possibly a duck" asserts a bird).
VAGUE_ANCHORS: frozenset[str] = frozenset({"object", "objects", "item", "items", "thing",
                                           "things", "something", "shape", "shapes", "figure",
                                           "figures", "form", "structure", "speck",
                                           "specks", "blob", "blobs", "silhouette",
                                           "silhouettes", "outline",
                                           # what is seen, not yet a thing: "a dark spot that
                                           # might be a cow", "a padded surface, possibly a couch"
                                           "surface", "surfaces", "spot", "spots", "strip",
                                           "strips", "streak", "streaks", "patch", "patches",
                                           "lump", "lumps", "dot", "dots", "glint", "shadow",
                                           "shadows", "reflection", "reflections", "pieces",
                                           "blur", "blurs", "glow", "sliver", "smudge",
                                           "smudges", "gleam", "rectangle", "rectangles",
                                           "square", "squares", "circle", "circles", "disc",
                                           "discs", "disk", "disks", "mass", "bundle",
                                           "bundles", "tuft", "tufts", "bump", "bumps",
                                           "hump", "humps", "mound", "mounds", "cargo",
                                           "load", "contents",
                                           # places: "off to the side, possibly a TV"
                                           "side", "background", "foreground", "distance",
                                           "corner", "edge", "left", "right", "direction",
                                           # what happens, not yet a thing: "motion near the
                                           # bins, possibly a cat", "a flash of green, maybe a
                                           # parrot"
                                           "motion", "movement", "movements", "flash",
                                           "flashes", "flicker", "splash", "ripple", "ripples",
                                           "sound", "noise"})
# Participles whose bare plural agent says who usually does so: "a junction heavily used by
# pedestrians", "tailoring favoured by older men".
HABITUAL_USE_PARTICIPLES: frozenset[str] = frozenset({
    "used", "favoured", "favored", "frequented", "visited", "preferred", "loved"})
# Quantities of a part of a set ("a few of the donuts are missing": the others are there).
PARTITIVE_QUANTIFIERS: frozenset[str] = frozenset({"few", "some", "several", "one", "half",
                                                   "couple", "many", "most"})
# Copulas of a kind-level statement ("dogs are loyal animals").
KIND_COPULAS: frozenset[str] = frozenset({"are", "make"})
# Predicates of a kind: "giraffes are well adapted to ...", "dogs are known for ...".
KIND_PREDICATES: frozenset[str] = frozenset({"adapted", "known", "famous", "native", "common",
                                             "popular", "loyal", "social", "intelligent",
                                             "rich", "nutritious"})
# Liking a bare noun likes the kind: "a man who loves doughnuts", "a big fan of donuts".
ATTITUDE_VERBS: frozenset[str] = verb_forms("love", "adore", "hate") | {
    "prefer", "prefers", "preferred"}
ATTITUDE_NOUNS: frozenset[str] = frozenset({
    "love", "passion", "fondness", "affection", "fan", "fans", "lover", "lovers", "enthusiast",
    "enthusiasts", "admirer", "admirers"})
# Verbs of a kind's habits with a bare plural subject: "horses like to eat grass".
KIND_HABIT_VERBS: frozenset[str] = frozenset({"like", "love", "prefer", "tend", "hate"})
# What a kind is known "for" doing: "a breed known for herding sheep".
REPUTATION_WORDS: frozenset[str] = frozenset({"known", "famous", "renowned", "noted", "famed"})
# Nouns whose bare plural "of"-object is a kind: "these kinds of horses", "the habit of cats".
KIND_NOUNS: frozenset[str] = frozenset({"kind", "kinds", "type", "types", "sort", "sorts",
                                        "breed", "breeds", "species", "habit", "habits",
                                        "nature", "behavior", "behaviour", "tendency"})
# Compound heads naming people by what they do with the object: "bus passengers", "boat owners",
# "skateboard enthusiasts". The object word is not another thing's name there: its usage is the
# phrase's (asserted passengers ride an asserted bus; "a spot for boat owners" is generic).
ROLE_HEADS: frozenset[str] = frozenset({
    "passenger", "passengers", "owner", "owners", "enthusiast", "enthusiasts", "lover",
    "lovers", "fan", "fans", "flying", "riding", "watching", "watchers", "rider", "riders",
    "racer", "racers"})
# Adverbs of place the tagger can read as a compound's noun head: "a skateboard indoors".
PLACE_ADVERBS: frozenset[str] = frozenset({"indoors", "outdoors", "outside", "inside",
                                           "nearby", "overhead", "downstairs", "upstairs",
                                           "alongside", "ahead", "behind"})
# The captioned picture itself: "a beach scene where a girl is the focus" describes it.
IMAGE_NOUNS: frozenset[str] = frozenset({"scene", "image", "picture", "photo", "photograph",
                                         "view", "shot", "moment"})
# Determiners and quantities that single out instances: "where several cars are parked".
INSTANCE_QUANTIFIERS: frozenset[str] = frozenset({"several", "many", "few", "some", "a",
                                                  "an", "numerous", "multiple", "various"})
# Modifiers of "kinds of X" that sort the ones there ("various kinds of donuts fill the case").
ASSORTMENT_WORDS: frozenset[str] = frozenset({"various", "different", "several", "many",
                                              "numerous", "multiple", "assorted", "diverse"})
# Predicates whose "whether"/"if" clause is left open ("it is unclear whether there is a car").
OPEN_QUESTION_MARKS: frozenset[str] = frozenset({"whether", "if", "unless"})
# Verbs and adjectives of certainty whose negation leaves a that-clause open: "I can't confirm
# that there are people on the boat", "I am not certain that a dog is there".
CERTAINTY_WORDS: frozenset[str] = verb_forms("confirm", "verify", "determine", "tell") | {
    "sure", "certain", "positive"}
# Adverbs that stop certainty short of certain: "pretty sure", "fairly certain" (not "quite
# sure", which can mean entirely).
LIMITING_DEGREE_ADVERBS: frozenset[str] = frozenset({"pretty", "fairly", "reasonably", "almost",
                                                    "mostly", "kinda", "somewhat", "relatively"})
# Past participles and adjectives whose "like"-phrase describes a form, not a thing ("a cake
# shaped like a car"; learners write "is shape like a cat").
FORM_LIKE_HEADS: frozenset[str] = frozenset({"shaped", "shape", "designed", "styled", "made",
                                             "carved", "dressed", "disguised", "costumed", "molded",
                                             "moulded", "formed", "decorated", "painted",
                                             "sculpted", "crafted", "fashioned", "folded",
                                             "twisted", "built", "constructed", "frosted",
                                             "iced", "trimmed", "sewn", "knitted", "baked"})
# Nouns of a form whose "of"-object is what the form shows: "carved into the heads of two
# horses", "folded into the shape of a swan".
FORM_NOUNS: frozenset[str] = frozenset({"head", "heads", "shape", "shapes", "form", "forms",
                                        "likeness", "figure", "figures", "silhouette"})
# Verbs whose object a representation imitates: "a toy resembling a donkey", "a hydrant painted
# to resemble a train".
RESEMBLING_VERBS: frozenset[str] = verb_forms("resemble", "mimic", "imitate", "depict")
# Verbs whose object a thing only copies, whatever the thing is: "the structure mimics a chair"
# (animals and people can be copied in a voice or a gesture: "a parrot mimics a man").
IMITATING_VERBS: frozenset[str] = verb_forms("mimic", "imitate") | {"mimicking", "mimicked"}
# Participles whose "on"/"after"-object is a model copied: "a sculpture modeled on a horse".
MODELLED_ON_HEADS: frozenset[str] = frozenset({"modeled", "modelled", "patterned", "styled"})
# Prepositions of a relative clause that places its noun: ", which is mounted on the wall".
LOCATIVE_PREPOSITIONS: frozenset[str] = frozenset({
    "on", "in", "at", "above", "below", "under", "underneath", "beneath", "near", "next",
    "beside", "behind", "against", "over", "inside", "atop", "along", "across", "around",
    "among", "throughout", "within"})
# Participles whose "as"-phrase is a disguise: "a child dressed as a cat".
COSTUME_HEADS: frozenset[str] = frozenset({"dressed", "disguised", "costumed"})
# Nouns whose "for"-object is advertised, shown rather than there: "an advertisement for a car".
ADVERT_NOUNS: frozenset[str] = frozenset({
    "advertisement", "advertisements", "ad", "ads", "advert", "adverts", "billboard",
    "billboards", "commercial", "commercials", "poster", "posters", "flyer", "flyers",
    "leaflet", "leaflets", "brochure", "brochures"})
# Verbs whose that-clause is what a sign or a note says: "a sign indicates that dogs must be
# kept on a leash", "a note reminds guests that phones are not allowed".
# ("says" is a text verb: `TEXT_VERBS`.)
NOTICE_VERBS: frozenset[str] = verb_forms(
    "indicate", "remind", "state", "inform", "announce", "instruct", "advise", "request", "ask",
    "warn")
# Whom a notice addresses: "reminds visitors that ...".
AUDIENCE_NOUNS: frozenset[str] = frozenset({
    "visitors", "guests", "customers", "people", "drivers", "riders", "passengers", "readers",
    "pedestrians", "users", "viewers", "everyone", "students", "patrons", "shoppers"})
NOTICE_NOUNS: frozenset[str] = frozenset({
    "sign", "signs", "note", "notes", "notice", "notices", "plaque", "plaques", "placard",
    "placards", "board", "boards", "message", "messages", "menu", "menus", "chalkboard", "flyer",
    "flyers", "screen", "screens", "display", "displays", "monitor", "monitors", "poster",
    "posters", "banner", "banners", "billboard", "billboards", "label", "labels"})
# Categories that are themselves representations: "a teddy bear" is the object, not a depiction.
DEPICTION_CATEGORIES: frozenset[str] = frozenset({"teddy bear"})

# --- purpose and intensional contexts ---------------------------------------------------------
# Verbs whose "for"-object need not exist ("waiting for the bus", "looking for a taxi").
INTENSIONAL_FOR_VERBS: frozenset[str] = verb_forms(
    "wait", "look", "search", "hunt", "hope", "ask", "call", "wish", "shop", "prepare", "long",
    "pose", "beg", "aim", "root", "cheer", "watch", "await", "scan", "fish")
# Verbs whose direct object need not exist ("wanting a snack", "awaiting the train").
INTENSIONAL_OBJECT_VERBS: frozenset[str] = verb_forms(
    "want", "need", "await", "expect", "seek", "anticipate", "desire", "crave", "imagine",
    "request", "order", "hope")
# Verbs whose subject-to-infinitive is still to come: "expecting their luggage to appear".
EXPECTING_VERBS: frozenset[str] = verb_forms("expect", "await", "anticipate")
ARRIVAL_VERBS: frozenset[str] = verb_forms("arrive", "appear", "come", "emerge", "return",
                                           "join", "pull", "show", "roll", "land", "dock")
# Verbs whose indirect object receives a place or a chance: "a bench offers people a spot to sit".
GIVING_VERBS: frozenset[str] = verb_forms("give", "offer", "provide", "afford", "grant")
# Verbs of finding, whose object is only sought while someone tries or hopes to find it: "trying
# to find a taxi", "hoping to spot a bird" (not "trying to catch the frisbee": it is in the air).
SEARCH_VERBS: frozenset[str] = verb_forms("find", "locate", "spot", "hail")
ATTEMPT_VERBS: frozenset[str] = verb_forms("try", "hope", "attempt", "struggle", "wait", "look",
                                           "search", "want", "need", "plan", "seek",
                                           "ask") | {
    "planning", "planned", "sought"}
# Verbs whose object, in a to-infinitive of purpose, is what a thing is meant to draw, keep off
# or direct, not something there: "a feeder hangs from the tree to attract birds", "cones placed
# to guide cars".
INTENDED_EFFECT_VERBS: frozenset[str] = verb_forms("attract", "deter", "repel", "lure",
                                                   "scare", "guide", "warn", "alert", "help",
                                                   "regulate", "protect", "shield", "stop",
                                                   "prevent", "slow", "control")
# Verbs whose "from"-object is what a thing is meant to keep off: "placed to shield the wall
# from any truck".
PROTECTING_VERBS: frozenset[str] = verb_forms("shield", "protect", "guard", "shelter", "save",
                                             "keep")
# Verbs whose object, kept "from" doing something by a thing's purpose, is only guarded against:
# "posts there to keep trucks from hitting the wall".
PREVENTING_VERBS: frozenset[str] = verb_forms("keep", "stop", "prevent")
# Verbs whose "of"/"about"-object, in a to-infinitive of purpose, is what a thing warns of:
# "a cone placed to warn people of an approaching train".
WARNING_VERBS: frozenset[str] = verb_forms("warn", "alert", "remind")
# Participles of someone awaited, which place no one: "seating for each person expected at the
# event".
AWAITED_PARTICIPLES: frozenset[str] = frozenset({"expected", "invited", "awaited", "due",
                                                 "scheduled", "booked"})
# Participles of traffic going by, which the parser can read as a gerund: "from passing cars".
PASSING_PARTICIPLES: frozenset[str] = frozenset({"passing", "oncoming", "approaching",
                                                 "speeding", "moving"})
# Nouns of seeking after "in ... of": "in search of someone", "in anticipation of the train".
QUEST_NOUNS: frozenset[str] = frozenset({"search", "anticipation", "hope", "hopes",
                                         "expectation", "pursuit"})
# Verbs whose that-clause subject is only hoped for: "hoping someone will arrive".
HOPING_VERBS: frozenset[str] = verb_forms("hope", "wish", "pray")
# Participles whose "at"/"to"-object is an audience: "a storybook aimed at preschool children".
AIMED_AT_HEADS: frozenset[str] = frozenset({"aimed", "geared", "targeted", "tailored",
                                            "marketed", "catered", "catering", "caters",
                                            "cater"})
# Verbs of capacity: under "can"/"could" their object is what there is room for ("the lot can
# accommodate many cars").
CAPACITY_VERBS: frozenset[str] = verb_forms("accommodate", "fit", "seat", "hold", "carry",
                                            "house", "host")
# Of those, the ones whose plain present says how much room there is: "the table seats four
# people", "the rack fits two bicycles" (not "a rack holds two bicycles": they are on it).
ROOM_VERBS: frozenset[str] = verb_forms("accommodate", "fit", "seat")
# Governors of an infinitive (or a for-phrase) that states what something is for.
PURPOSE_GOVERNORS: frozenset[str] = verb_forms(
    "design", "use", "mean", "intend", "build", "make", "wait", "want", "need", "hope", "plan",
    "prepare", "reserve", "equip", "set", "provide", "allow", "enable",
    "help", "invite", "encourage", "serve", "dedicate", "tailor") | {
    "built", "made", "meant", "ready", "enough", "perfect", "ideal", "suitable", "convenient",
    "great", "able", "available", "place", "places", "space", "spot", "spots", "area", "areas",
    "room", "way", "opportunity", "chance", "location", "setting", "designated", "eager", "about",
    "waiting", "sufficient", "adequate", "intended", "going", "sized", "scaled",
    # sent off on an errand: "heading to the stockroom to fetch a toaster"
    "heading", "headed", "sent", "dispatched",
    # put in place for a use: "brackets installed to hold surfboards", "rated to lift one person"
    "installed", "mounted", "fitted", "arranged", "rated"}
# Nouns whose "for"-object is a beneficiary/purpose ("food for the cat") are any nouns; these
# adjectives do the same ("perfect for families").
PURPOSE_ADJECTIVES: frozenset[str] = frozenset({
    "perfect", "ideal", "suitable", "great", "ready", "safe", "convenient", "available",
    "designed", "intended", "meant", "reserved", "used", "useful", "good", "enough", "necessary",
    "essential", "appropriate", "fit", "made", "built", "set", "prepared", "waiting", "accessible",
})
# --- generic / habitual -----------------------------------------------------------------------
# Time nouns a when-clause names a bygone era with: "the days when trains were ...", "an era
# when ..." (not "time": "taken at a time when cars were parked" is the photograph's moment).
ERA_NOUNS: frozenset[str] = frozenset({"era", "eras", "age", "ages", "days", "past", "period",
                                       "century", "centuries", "decade", "decades",
                                       "generation", "epoch"})
# Long spans a present perfect lasts for, which (with the era nouns) make it a habit: "where
# boats have been moored for generations", "since the 19th century".
LONG_SPANS: frozenset[str] = frozenset({"generations", "years"})
# Quantifiers that make a comparison with the kind: "like most cats do", "like many giraffes".
KIND_QUANTIFIERS: frozenset[str] = frozenset({"most", "many", "all"})
HABITUAL_ADVERBS: frozenset[str] = frozenset({
    "usually", "typically", "often", "generally", "commonly", "normally", "frequently",
    "traditionally", "regularly", "customarily", "sometimes", "occasionally", "always",
    "ordinarily", "rarely", "seldom", "routinely", "habitually",
})
# "a spot popular with tourists", "a popular spot for tourists".
GENERIC_ADJECTIVES: frozenset[str] = frozenset({"popular", "favorite", "favourite", "common",
                                                "frequented", "known", "famous", "beloved"})
# "like a typical school bus": the kind, in a comparison.
TYPICAL_ADJECTIVES: frozenset[str] = frozenset({"typical", "ordinary", "regular", "average",
                                                "standard", "classic", "traditional"})

# --- not the object ---------------------------------------------------------------------------
# Verbs of posture and motion that the small English model often tags as nouns after a subject
# noun ("A horse grazes", "a knife lie beside it", "cars queue"), producing a false noun-noun
# compound. None of them heads a real compound with an object word in captions ("stand", "stop",
# "park", "ride" and "rest" do, so they are left out).
CAPTION_VERBS: frozenset[str] = verb_forms(
    "graze", "stare", "lie", "queue", "sit", "walk", "run", "wait", "sleep", "eat", "drink",
    "float", "swim", "jump", "watch", "hold", "carry", "pull", "perch", "lean", "chase", "climb",
    "lick", "sniff", "roam", "wander", "look", "play", "gaze", "pose", "smile", "travel", "move",
    "approach", "fly", "occupy", "peek", "trot", "rest", "hang", "dangle", "hover", "soar",
    "glide", "bark", "crawl", "stroll", "stretch", "wave") | {
    "flies", "lies", "lay", "lays", "sat", "ran", "held", "flew"}

# Compound heads naming a part (or a fixture) of the modifier's object: "the toilet seat", "the
# car door", "the clock face" still assert the toilet, car, clock. Any other compound head means
# the word names a kind of something else ("bus stop", "dog food", "ski lift"): not the object.
PART_HEADS: frozenset[str] = frozenset({
    "seat", "seats", "lid", "lids", "cover", "covers", "tank", "door", "doors", "window",
    "windows", "wheel", "wheels", "tire", "tires", "tyre", "tyres", "handle", "handles",
    "handlebar", "handlebars",
    "screen", "screens", "face", "hands", "keys", "key", "pedal", "pedals", "engine", "wing",
    "wings", "tail", "tails", "nose", "cockpit", "mirror", "mirrors", "headlight", "headlights",
    "bumper", "hood", "roof", "frame", "legs", "leg", "back", "arm", "arms", "armrest", "cushion",
    "cushions", "driver", "drivers", "rider", "riders", "head", "heads", "ears",
    "ear", "eyes", "fur", "mane", "trunk", "trunks", "tusks", "horns", "paws", "body", "neck",
    "necks", "side", "sides", "top", "bottom", "front", "rear", "interior", "exterior", "cab",
    "deck", "hull", "mast", "sail", "sails", "bow", "stern", "cabin", "compartment", "cars",
    "car", "carriage", "carriages", "crust", "slice", "slices", "topping", "toppings",
    "icing", "frosting", "layer", "layers", "piece", "pieces", "half", "halves", "peel", "peels",
    "stem", "stems", "florets", "spout", "rim", "rims", "base", "blade", "blades", "bristles",
    "caboose",
    "strap", "straps", "string", "strings", "cord", "buttons", "button", "lights", "light",
    "pole", "post", "hand", "display", "monitor", "touchpad", "trackpad",
    "shell", "basin", "faucet", "tap", "drawer", "drawers", "shelf",
    "shelves", "compartments", "burners", "burner", "panel", "dial", "dials", "kitten", "puppy",
    "puppies", "kittens", "calf", "foal", "cub", "cubs", "herd", "flock", "family", "group",
    "pack", "pair", "team", "crowd", "line", "fleet", "collection", "bunch", "stack", "pile",
    "set", "row", "rows", "load", "area", "areas", "top", "ride", "rides", "counter",
    "countertop", "presence", "activity", "faces", "bowl", "bowls", "computer", "computers",
    "keyboard",
    "keyboards", "trick", "tricks", "element", "elements"})
# Heads that name the same object in other words: "a pizza pie" is a pizza.
SAME_OBJECT_HEADS: dict[str, frozenset[str]] = {"pizza": frozenset({"pie", "pies"}),
                                                 "carrot": frozenset({"stick", "sticks"})}
# Heads that name the object itself whatever it is: "bird species", "banana fruits", "his two
# feline companions".
ANY_SAME_OBJECT_HEADS: frozenset[str] = frozenset({"species", "breed", "breeds", "companion",
                                                   "companions", "fruit", "fruits"})
# Words of the vocabulary that are also verbs ("people ski", "to tie"): only these are read as
# a verb when the tagger says so ("a toaster oven" is tagged a participle).
VERB_WORDS: frozenset[str] = frozenset({
    "ski", "skis", "tie", "ties", "bowl", "bowls", "book", "books", "bottle", "bottles", "bike",
    "bikes", "skateboard", "skateboards", "snowboard", "snowboards", "surf", "bus", "buses",
    "truck", "trucks", "boat", "boats", "bench", "benches", "cup", "cups", "fork", "forks",
    "knife", "dog", "dogs", "toast", "person", "man", "men"})
# Nouns in -ing that head compounds ("a pedestrian crossing", "a train building"), unlike the
# participles the tagger reads as nouns ("a cell phone charging").
ING_NOUNS: frozenset[str] = frozenset({
    "crossing", "crossings", "building", "buildings", "ceiling", "clothing", "painting",
    "paintings", "drawing", "drawings", "railing", "railings", "wedding", "evening", "morning",
    "icing", "topping", "toppings", "frosting", "filling", "awning", "opening", "parking",
    "bedding", "landing", "seating", "lighting", "dressing", "stuffing", "siding", "wing",
    "wings", "string", "ring", "spring", "swing", "king", "thing", "things", "pudding",
    "stocking", "stockings", "sling", "outing", "offering", "listing", "gathering", "meeting",
    "recording", "setting", "fitting", "fittings", "feeding", "sighting", "shopping",
    "racing"})
# Object words that are verbs only as infinitives, for the tagger: "begins to sink" (it also
# tags "a bathroom sink" and, without articles, "shows train traveling" as verbs).
INFINITIVE_VERB_WORDS: frozenset[str] = frozenset({"sink", "bear", "train"})
# Parts of a fruit that keep the fruit: "an orange slice" is the fruit, not the colour.
FRUIT_PART_HEADS: frozenset[str] = frozenset({"slice", "slices", "peel", "peels", "wedge",
                                              "wedges", "segment", "segments", "rind", "half",
                                              "halves"})
# Animals that draw a vehicle: "horse-drawn carriages" are no drawing.
DRAUGHT_ANIMALS: frozenset[str] = frozenset({"horse", "horses", "ox", "oxen", "mule", "mules",
                                             "donkey", "pony", "reindeer", "camel", "dog"})
# Verbs the tagger can read as a compound's noun head when a place or particle follows: "a
# sandwich cut in half", "a fork and knife rest beside the plate", "a bus pass by".
MISTAGGED_VERB_HEADS: frozenset[str] = frozenset({"cut", "cuts", "rest", "pass", "cross",
                                                  "sliced"}) | verb_forms(
    "pass", "speed", "gallop", "dash", "zoom", "glide", "cruise",
    "wade", "stroll", "hop", "dart")
# Adjectives of the fruit itself: "a small orange" is fruit, wherever the tagger puts it.
FRUIT_STATE_ADJECTIVES: frozenset[str] = frozenset({
    "small", "large", "big", "whole", "ripe", "fresh", "peeled", "sliced", "halved", "single",
    "juicy", "lone"})
# Compounds, read head-first, in which the object word is the head yet names something else.
HEAD_COMPOUNDS: frozenset[tuple[str, str]] = frozenset({
    ("toilet", "bowl"), ("jet", "ski"), ("jet", "skis"), ("cable", "car"), ("cable", "cars"),
    ("motor", "bike"), ("motor", "bikes"), ("dirt", "bike"), ("dirt", "bikes"),
    ("train", "car"), ("train", "cars"), ("rail", "car"), ("street", "car"), ("dining", "car"),
    ("passenger", "car"), ("passenger", "cars"), ("subway", "car"), ("subway", "cars"),
    ("trolley", "car"), ("box", "car"), ("freight", "car"), ("freight", "cars"),
    ("golf", "cart"), ("sea", "lion"), ("prairie", "dog"), ("corn", "dog"),
    ("sun", "bear"), ("gummy", "bear"), ("gummy", "bears"), ("snow", "man"), ("police", "man"),
    ("fire", "man"), ("super", "bowl"), ("dust", "bowl"), ("flower", "bed"), ("flower", "beds"),
    ("river", "bed"), ("truck", "bed"), ("sea", "bed"), ("garden", "bed"), ("garden", "beds"),
    ("flat", "bed"), ("pickup", "bed"), ("hay", "bed"), ("tram", "car"), ("tram", "cars"),
    ("rail", "cars"), ("railroad", "tie"), ("railroad", "ties"), ("rail", "ties"),
    ("bus", "stop"),  # "a bus stop sign" is no stop sign
    ("toilet", "bowls"), ("cargo", "car"), ("cargo", "cars"),
    ("microwave", "oven"), ("microwave", "ovens"),  # a microwave oven is a microwave
})
# Compounds, read modifier-first, whose head names something else however the parser attaches
# the modifier ("a bus stop sign").
MODIFIER_COMPOUNDS: frozenset[tuple[str, str]] = frozenset({
    ("bus", "stop"), ("bus", "stops"), ("train", "station"), ("train", "stations"),
    ("toaster", "oven"), ("toaster", "ovens")})  # a toaster oven is an oven
# Participles of things someone put somewhere (toys, not animals): "two bears placed nearby".
PUT_PARTICIPLES: frozenset[str] = frozenset({"placed", "positioned", "arranged", "stacked",
                                             "propped", "lined", "displayed", "tucked"})
# Adjectives whose "to"-object is whom a thing is for: "accessible to people in wheelchairs".
ACCESS_ADJECTIVES: frozenset[str] = frozenset({"accessible", "available", "open"})
# Passive verbs whose "by"-agent, under "can", is whom a thing serves: "the boats can be easily
# accessed by people walking nearby".
ACCESS_VERBS: frozenset[str] = frozenset({"accessed", "reached", "used", "enjoyed", "operated"})
# What a notice gives its audience: "a sign providing information to drivers and pedestrians".
INFORMATION_NOUNS: frozenset[str] = frozenset({
    "information", "guidance", "directions", "instructions", "warning", "warnings", "reminder",
    "reminders", "updates", "news"})
# Verbs whose bare object is a game: "playing baseball".
PLAYING_VERBS: frozenset[str] = verb_forms("play")
# Words of a score, beside which "a tie" is a draw: "a tie at 2-2", "a tie, two goals each".
SCORE_WORDS: frozenset[str] = frozenset({
    "score", "scores", "scoreboard", "goals", "runs", "points", "apiece", "inning", "innings",
    "overtime", "tiebreak", "tiebreaker", "2-2", "1-1", "0-0", "3-3"})
# Modifiers that make "car" a railway carriage only in a railway scene ("a passenger car" on a
# road is an automobile), and the words that make a scene a railway one.
RAIL_OR_ROAD_MODIFIERS: frozenset[str] = frozenset({"passenger"})
RAIL_WORDS: frozenset[str] = frozenset({
    "train", "trains", "railway", "railways", "railroad", "rail", "rails", "track", "tracks",
    "locomotive", "locomotives", "tram", "trams", "subway", "carriage", "carriages", "wagon",
    "wagons", "platform", "station"})
# Rail vehicles whose "cars" are carriages: "the train is moving, with six cars visible".
RAIL_VEHICLES: frozenset[str] = frozenset({"train", "trains", "locomotive", "locomotives",
                                           "tram", "trams", "subway"})
# Verbs of a vehicle with its carriages ("it has multiple cars") and participles that couple
# them to it ("cars following behind it", "cars attached to it").
HAVING_VERBS: frozenset[str] = verb_forms("have", "pull", "haul", "tow", "drag", "comprise") | {
    "has", "had"}
# Verbs whose "of"-object is what a whole is made of: "the train is made up of several cars".
MADE_OF_VERBS: frozenset[str] = frozenset({"made", "consists", "consist", "consisting",
                                           "composed", "comprised"})
COUPLED_PARTICIPLES: frozenset[str] = frozenset({"following", "attached", "coupled", "connected",
                                                 "trailing", "linked"})
# Colour words: "orange" next to these (or modifying a noun) is the colour, not the fruit.
COLOUR_WORDS: frozenset[str] = frozenset({
    "red", "green", "blue", "yellow", "black", "white", "brown", "pink", "purple", "gray", "grey",
    "orange", "gold", "golden", "silver", "beige", "tan", "teal", "maroon", "violet", "navy",
    "cream", "dark", "light", "bright", "pale", "colored", "coloured", "striped", "vibrant",
})

# Subordinators of reason and time: a hedge on the main clause does not reach into their clause
# ("they may have arrived late, since more chairs can be seen").
ADVERBIAL_MARKS: frozenset[str] = frozenset({"since", "because", "although", "though", "while",
                                             "whereas", "when", "after", "before", "once"})
# Subordinators whose clause is stated as a fact, like a main clause: a hedge inside it covers
# its subject as it would a main clause's ("the street is quiet, although a dog may be sleeping
# under the bench"). Not "when", "where", "as": "when cars may pass" reads as a habit.
STATED_CLAUSE_MARKS: frozenset[str] = frozenset({"although", "though", "while", "whereas",
                                                 "because", "since"})
# Words opening an aside that gives a hedge's evidence, which the caption asserts: "probably a
# hotel room, given the bed and the TV", ", judging by the camera", ", based on the oven".
EVIDENCE_WORDS: frozenset[str] = frozenset({"given", "judging", "based", "considering"})
# Punctuation that ends a hedge's reach inside one parsed sentence (run-on captions).
CLAUSE_BREAKS: frozenset[str] = frozenset({";", "–", "—", "--"})

# --- shared -----------------------------------------------------------------------------------
DEFINITE_DETERMINERS: frozenset[str] = frozenset({"the", "this", "that", "these", "those",
                                                  "its", "his", "her", "their", "our", "my",
                                                  "your", "whose"})
DEFINITE_ARTICLES: frozenset[str] = frozenset({"the", "this", "that", "these", "those"})
POSSESSIVE_PRONOUNS: frozenset[str] = frozenset({"its", "his", "her", "their"})
# Nouns through whose "of"-complement scope passes: "a group of people", "no signs of cars".
PARTITIVE_NOUNS: frozenset[str] = frozenset({
    "group", "groups", "pair", "pairs", "couple", "number", "lot", "lots", "bunch", "bunches",
    "variety", "set", "sets", "kind", "kinds", "type", "types", "sort", "sorts", "pile", "piles",
    "stack", "stacks", "herd", "herds", "flock", "flocks", "row", "rows", "line", "lines",
    "crowd", "crowds", "few", "some", "many", "several", "all", "one", "two", "three", "none",
    "any", "most", "each", "both", "plenty", "dozen", "dozens", "handful", "collection",
    "assortment", "array", "selection", "fleet", "team", "family", "pack", "sign", "signs",
    "trace", "traces", "evidence", "presence", "indication", "hint", "sight", "piece", "pieces",
    "slice", "slices", "part", "parts", "amount", "majority", "series", "cluster", "range",
    "mix", "mixture", "swarm", "band", "gaggle", "batch", "load", "loads",
})

# Sports and activity words that, as modifiers, name the game rather than the object ("baseball
# field", "ski pole", "basketball team"), whatever the head.
ACTIVITY_MODIFIERS: frozenset[str] = frozenset({"ski", "skis", "baseball", "basketball",
                                                "football", "volleyball", "soccer", "tennis"})
# Heads that turn a modifier into the thing itself ("human presence" = presence of humans).
PRESENCE_HEADS: frozenset[str] = frozenset({"presence", "activity", "activities", "element",
                                            "elements"})
# Verbs of inference: what their clause says is concluded, not seen ("possibly indicating that
# someone was using it", "suggesting that someone might have been in the room").
INFERENCE_VERBS: frozenset[str] = verb_forms("indicate", "suggest", "imply", "hint", "signal",
                                             "mean")
# Nouns whose that-clause is inferred, as the verbs' is: "evidence that a jet passed overhead",
# "signs that a parrot was kept in it" (not "a sign that says ...": there "that" is the subject).
INFERENCE_NOUNS: frozenset[str] = frozenset({"evidence", "sign", "signs", "indication",
                                             "indications", "proof", "clue", "clues"})
# Categories that can appear on a decorated surface only as figures: "a cake decorated with a
# dog" (depictive) vs. "a room decorated with vases" (real vases).
REPRESENTED_WHEN_DECORATING: frozenset[str] = ANIMATE_CATEGORIES | frozenset({
    "car", "bus", "train", "truck", "airplane", "boat", "motorcycle", "bicycle"})
# Foods made in the shape of what names them, when that can only be a figure: "a train cake",
# "a teddy bear cake" (not "a carrot cake", "a banana cake": the ingredient).
SHAPED_FOODS: frozenset[str] = frozenset({"cake", "cakes"})
# Food categories of the vocabulary: "an apple or orange" lists fruit.
FOOD_CATEGORIES: frozenset[str] = frozenset({"apple", "banana", "orange", "broccoli", "carrot",
                                             "sandwich", "hot dog", "pizza", "donut", "cake"})
# Places whose decorations are real things: "the beach is adorned with a few boats" (not "a cake
# decorated with a dog").
DECORATED_PLACES: frozenset[str] = PLACE_KIND_NOUNS | frozenset({
    "beach", "street", "streets", "park", "garden", "yard", "patio", "porch", "shore", "harbor",
    "harbour", "marina", "lake", "river", "water", "field", "road", "sidewalk", "plaza",
    "square", "lawn", "courtyard", "deck"})
# Things made for someone, named by an indefinite possessor: "a child's room", "a children's
# book", "a dog's water bowl", "women's clothing items" (not "a child's hair": a body part).
FOR_WHOM_HEADS: frozenset[str] = frozenset({
    "room", "rooms", "bedroom", "bedrooms", "bathroom", "nursery", "playroom", "book", "books",
    "toy", "toys", "play", "playground", "bowl", "bowls", "bed", "beds", "crate", "kennel",
    "clothing", "clothes",
    "wardrobe", "birthday", "party", "lunch", "meal", "section", "department", "outfit",
    "outfits", "menu",
    # goods made for the group: "a women's magazine", "girls' sneakers", "a kids' helmet"
    "magazine", "magazines", "storybook", "storybooks", "shoes", "sneakers", "boots", "shirt",
    "shirts", "jacket", "jackets", "hat", "hats", "gloves", "watch", "watches", "perfume",
    "helmet", "helmets", "bike", "bikes", "bicycle", "bicycles", "store", "shop", "boutique",
    "clubhouse", "cabin", "camp", "backpack", "backpacks", "bag", "bags", "dress", "dresses",
    "toothbrush", "toothbrushes"})
# What a shop sells is a kind of goods, not what is there: "a shop that sells boats".
SELLING_VERBS: frozenset[str] = frozenset({"sells", "sell", "rents", "rent"})
SHOP_NOUNS: frozenset[str] = frozenset({
    "shop", "shops", "store", "stores", "stand", "stands", "vendor", "vendors", "market",
    "boutique", "dealership", "dealer", "business", "kiosk", "stall", "stalls"})
# Adjectives that make a clause about kinds: "it is not common to see a cat on a toilet".
GENERIC_INFINITIVE_GOVERNORS: frozenset[str] = frozenset({"common", "uncommon", "unusual", "rare",
                                                          "typical", "normal", "usual"})
# Nouns for the captioned image as a whole: "the image is a collage of four pictures".
COLLAGE_NOUNS: frozenset[str] = frozenset({"collage", "collages", "series", "montage", "grid"})
# Words after "for" that are not a purpose ("except for the cars", "as for").
NON_PURPOSE_FOR_HEADS: frozenset[str] = frozenset({"except", "as", "but", "save", "known",
                                                   "famous", "responsible", "time", "while"}) | \
    verb_forms("reach", "grab")  # one reaches for what is there: "reaching for a bottle"
# Subordinators of a clause about a place's use: "a park where people walk".
WHERE_WORDS: frozenset[str] = frozenset({"where", "wherever"})
GENERIC_MODALS: frozenset[str] = frozenset({"can", "could", "might", "may", "would", "should",
                                            "will"})
# The value of a list-style field that denies it: "People: none visible", "Dogs: no".
NEGATIVE_ANSWERS: frozenset[str] = frozenset({"none", "no", "not", "absent", "zero", "0",
                                              "nothing", "n/a"})
# Pronouns that deny what they stand for: "nothing suggests that a dog lives here".
NOTHING_WORDS: frozenset[str] = frozenset({"nothing", "none", "nobody", "neither"})
# First words of a yes/no question, or of its label: "Is there a dog?", "Are any people
# visible?", "Question 5: Is there a dog?" (a question asks; it does not guess).
QUESTION_OPENERS: frozenset[str] = frozenset({"is", "are", "was", "were", "do", "does", "did",
                                              "can", "could", "will", "would", "has", "have",
                                              "any", "q", "question"})
# Posture participles whose "by" places the subject ("standing by the counter"; not "made by").
POSTURE_VERBS: frozenset[str] = verb_forms("stand", "sit", "lie", "wait", "rest", "lean", "park",
                                           "kneel", "crouch", "perch") | {"lying", "sat", "stood"}
# Participles that place what they describe: "a few bottles appear scattered across the room".
PLACEMENT_PARTICIPLES: frozenset[str] = frozenset({
    "scattered", "placed", "parked", "perched", "positioned", "located", "situated", "seated",
    "stacked", "arranged", "lined", "spread", "hung", "hanging", "mounted", "propped", "tucked",
    "nestled", "gathered", "clustered", "left", "lying", "sitting", "standing", "resting",
    "stuck", "plugged", "leaning", "lodged", "wedged", "piled", "laid", "curled", "sprawled",
    "stored", "hidden", "moored", "docked", "anchored", "tied", "chained", "locked"})
# Verbs of having inside: "the boxes appear to contain fresh produce".
CONTAINING_VERBS: frozenset[str] = verb_forms("have", "contain", "hold", "include")
# Verbs of looking like: "a toy that looks like a donkey".
LOOK_VERBS: frozenset[str] = verb_forms("look")
# Adverbs that make "painted" a coat of paint: "a brightly painted fire hydrant".
PAINT_COAT_ADVERBS: frozenset[str] = frozenset({"brightly", "freshly", "newly", "recently",
                                                "colorfully", "colourfully", "vividly"})
# Participles that put a picture up somewhere in the scene: "a photo pinned to the corkboard".
PUT_UP_PARTICIPLES: frozenset[str] = frozenset({
    "pinned", "taped", "tacked", "posted", "mounted", "propped", "stuck", "glued", "affixed",
    "attached", "leaning", "displayed", "magnetized", "clipped"})
# The same as bare infinitives: "a clock appears to hang above the door".
PLACEMENT_VERBS: frozenset[str] = frozenset({"sit", "stand", "lie", "rest", "lean", "hang",
                                             "perch", "sprawl", "curl", "nestle"})
# Determiners of one thing: "a freight train winds" cannot be a plural "train winds".
SINGULAR_DETERMINERS: frozenset[str] = frozenset({"a", "an", "another", "each", "every"})
# Words after "a" that count a plural: "a few ski poles", "a couple of cups".
COUNTING_WORDS: frozenset[str] = frozenset({"few", "couple", "lot", "lots", "number", "dozen",
                                            "pair", "bunch", "group", "variety", "set"})
# Nouns that take "a" though they end in "-s" (the tagger may call them plural).
SINGULAR_S_NOUNS: frozenset[str] = frozenset({
    "series", "species", "means", "news", "glasses", "binoculars", "scissors", "pants",
    "trousers", "jeans", "shorts", "tongs", "pliers", "goggles", "headphones", "earphones",
    "sunglasses", "overalls", "leggings", "tights", "lens", "bus", "gas", "canvas", "mattress",
    "dress", "class", "glass", "grass", "bass", "compass", "cactus", "octopus", "walrus",
    "chassis", "corps", "crossroads", "barracks", "headquarters", "gallows", "premises"})
# Verbs whose "of"/"from"-object is what a thing is made of: an animal or a person made of wood
# or plastic is a representation ("the cow is made of plastic", "a horse carved out of stone").
MAKING_VERBS: frozenset[str] = frozenset({"made", "carved", "crafted", "sculpted", "molded",
                                          "moulded", "built", "constructed", "formed", "cast",
                                          "modeled", "modelled", "rendered", "shaped", "sewn",
                                          "fashioned", "piped", "sketched", "drawn", "cut"})
# The same said of the maker, whose object is made "out of" or "from" a material: "an artist
# carves a bear out of ice", "a child builds a train from plastic bricks".
MAKING_ACTIVE_VERBS: frozenset[str] = verb_forms(
    "make", "carve", "craft", "sculpt", "mold", "mould", "build", "construct", "form", "shape",
    "fashion", "model") | {"made", "built"}
# Verbs whose object is a drawing: "the teacher sketches a clock on the blackboard".
DRAWING_VERBS: frozenset[str] = verb_forms("draw", "sketch", "doodle") | {"drew", "drawn"}
# Materials of models and toys: a vehicle made of them is a likeness ("a bus made of wooden
# blocks", "a car made of Lego"), unlike one made of metal or wood.
TOY_MATERIALS: frozenset[str] = frozenset({
    "block", "blocks", "lego", "legos", "paper", "cardboard", "clay", "playdough", "fondant",
    "icing", "sugar", "chocolate", "balloons", "yarn", "felt", "sand", "snow", "matchsticks",
    "toothpicks", "cream", "gingerbread", "sponge", "bricks", "ice"})
# Materials a likeness is made of or in: "a horse cast in bronze", "a train made of sugar paste".
MATERIAL_NOUNS: frozenset[str] = TOY_MATERIALS | SCULPTING_MATERIALS | frozenset({
    "bronze", "stone", "plaster", "wood", "metal", "steel", "iron", "copper", "silver", "gold",
    "porcelain", "ceramic", "glass", "plastic", "rubber", "plywood", "fabric", "cloth", "chalk",
    "pencil", "ink", "crayon", "frosting", "papier", "wire", "charcoal", "pastel", "pastels",
    "watercolor", "watercolors", "watercolour", "watercolours", "oils", "neon"})
# Nouns that say what a named thing really is, a likeness: "the locomotive is a plastic model",
# "the bear on the books is a wooden carving", "the horse on the seat is part of the sculpture"
# (not what holds a picture: "the cat is a sign" is no English, and a person "is a model").
LIKENESS_NOUNS: frozenset[str] = frozenset({
    "sculpture", "sculptures", "statue", "statues", "figurine", "figurines", "replica",
    "replicas", "carving", "carvings", "toy", "toys", "model", "models", "decoy", "decoys",
    "prop", "props", "decoration", "decorations", "ornament", "ornaments", "illustration",
    "illustrations", "drawing", "drawings", "painting", "paintings", "print", "prints",
    "decal", "decals", "sticker", "stickers", "cutout", "cutouts", "puppet", "puppets",
    "poster", "posters", "ad", "ads", "advertisement", "advertisements", "logo", "logos",
    "stencil", "topiary", "pattern", "patterns", "emblem", "emblems", "motif", "motifs",
    "doll", "dolls", "artwork", "artworks", "installation", "fake", "fakes", "imitation",
    "likeness", "mural", "graffiti", "statuette", "statuettes", "topper", "toppers"})
# Of those, the ones a person can be: "the woman is a model", "she is a doll".
PERSON_ROLE_LIKENESS_NOUNS: frozenset[str] = frozenset({"model", "models", "doll", "dolls",
                                                        "prop", "props", "fake", "fakes"})
# Labels whose content follows a colon in terse and list-style captions: "Mural: cyclist
# racing uphill", "TV screen: a football match" (not the captioned image, a sign or a toy,
# which can be the things listed, nor a photographic print).
CONTENT_LABELS: frozenset[str] = (DEPICTION_NOUNS | SCREEN_NOUNS | {"art"}) - FRAME_NOUNS - \
    VAGUE_DEPICTION_NOUNS - {
        "sign", "signs", "model", "models", "costume", "costumes", "balloon", "balloons",
        "menu", "menus", "video", "videos", "clip", "clips", "footage", "character",
        "characters", "toy", "toys", "doll", "dolls", "monument", "monuments", "memorial",
        "memorials", "print", "prints",
        # devices and arrangements as often as screens: "Pet monitor: the cat is eating",
        # "Sports store display: a basketball on a rack"
        "monitor", "monitors", "display", "displays"}
# Subjects whose "is"-predicate is what they show: "the cover art is a blue train", "the logo
# is a horse" (not a frame or a vague shape: "the figure in the distance is a man").
CONTENT_SUBJECTS: frozenset[str] = DEPICTION_NOUNS - FRAME_NOUNS - VAGUE_DEPICTION_NOUNS - {
    "sign", "signs", "model", "models", "toy", "toys", "costume", "costumes", "balloon",
    "balloons", "menu", "menus", "character", "characters", "ornament", "ornaments", "magnet",
    "magnets", "chalkboard", "chalkboards", "banner", "banners", "billboard", "billboards",
    "monument", "monuments", "memorial", "memorials"} | {"art", "artwork"}
# Materials a toy is not made of, so that a teddy bear of them is a figure of one: "a bronze
# teddy bear", "fondant teddy bears" (a plush or knitted one is the toy).
FIGURE_MATERIALS: frozenset[str] = SCULPTING_MATERIALS | frozenset({
    "bronze", "stone", "ceramic", "porcelain", "glass", "metal", "iron", "steel", "copper",
    "tin", "terracotta", "aluminum", "aluminium", "chocolate", "candy", "sugar", "fondant",
    "gingerbread"})
# Modifiers that make a teddy bear a picture or a carving of one: "carved teddy bears".
FIGURE_MAKING_MODIFIERS: frozenset[str] = frozenset({
    "carved", "sculpted", "printed", "painted", "drawn", "cartoon", "illustrated", "embossed",
    "engraved", "etched", "stenciled", "stencilled", "sketched", "piped"})
# Verbs that turn a material into a likeness named by their "as"/"into" object: "a cake sculpted
# as a steam train", "towels folded into swans" (not "cut into slices").
FORMING_VERBS: frozenset[str] = MAKING_VERBS - {"cut"} | frozenset({
    "folded", "twisted", "designed", "styled"})
# Materials a cook makes figures of: "a teddy bear piped in icing" is a likeness, "a pizza made
# of resin" is not a food.
EDIBLE_MATERIALS: frozenset[str] = frozenset({"fondant", "icing", "sugar", "chocolate",
                                              "frosting", "marzipan", "candy", "dough",
                                              "cookie", "cookies", "cake", "cream"})
# Verbs of letting someone do something: "a bench inviting people to sit".
ENABLING_VERBS: frozenset[str] = verb_forms("invite", "allow", "enable", "encourage", "help",
                                            "permit") | {"let", "lets", "letting"}
# Governors of an infinitive whose object is there to be acted on: "ready to hit the ball",
# "about to cut a cake", "preparing to hit a tennis ball".
READY_GOVERNORS: frozenset[str] = verb_forms("prepare") | {"ready", "about", "prepared"}
# What a depiction "includes" is its content: "the painting on the board includes a cat".
CONTENT_VERBS: frozenset[str] = verb_forms("include", "contain", "feature", "show", "depict",
                                           "list")
# Of those, the verbs of a list, whose object is text even on a sign: "a sign lists cats and dogs".
LISTING_VERBS: frozenset[str] = verb_forms("list")
# The writer's belief: "I think there is a cat", "we can infer that a dog lives here", "it can
# be assumed that ...".
BELIEF_VERBS: frozenset[str] = verb_forms("think", "believe", "guess", "suspect", "assume",
                                          "presume", "suppose", "infer", "speculate",
                                          "deduce", "reckon", "bet") | {"thought", "inferred"}
# Nouns of a thing's being there, whose "of"-object is only as present as they are said to be:
# "the presence of cars is suggested by the light".
PRESENCE_NOUNS: frozenset[str] = frozenset({"presence", "existence"})
# Words that make a phrase a further instance, not the one already named: "a second cat",
# "another person", "more birds".
NEW_INSTANCE_WORDS: frozenset[str] = frozenset({"another", "other", "additional", "more",
                                               "second", "third", "fourth", "extra", "further"})
# Nouns of a measure whose "of"-object is only a yardstick: "nearly the size of a bus".
SIZE_NOUNS: frozenset[str] = frozenset({"size", "height", "length", "width", "weight"})
# Verbs before a title: "a book titled 'The Cat in the Window'".
TITLE_VERBS: frozenset[str] = frozenset({"titled", "entitled", "called", "named"})
# Predicates that say their subject is not there: "two donuts are missing".
ABSENCE_WORDS: frozenset[str] = frozenset({"missing", "absent", "gone"})
# Participles of a permission: "bicycles are not allowed in the area" bans them.
PERMISSION_PARTICIPLES: frozenset[str] = frozenset({"allowed", "permitted"})
# What a thing "out of" or "outside" is not in when it is not shown: "the dog is out of frame".
FRAME_WORDS: frozenset[str] = frozenset({"frame", "view", "sight", "shot", "picture", "image",
                                         "photo", "scene"})
# Words before a noun phrase that offer it as a likeness ("something akin to a kayak", "flecks
# suggestive of carrots") or as the writer's guess ("I'd say a vase", "one can guess a cow").
LIKENESS_IDIOMS: frozenset[tuple[str, ...]] = frozenset({
    ("akin", "to"), ("suggestive", "of"), ("reminiscent", "of")})
GUESS_IDIOMS: frozenset[tuple[str, ...]] = frozenset({
    ("can", "guess"), ("'d", "say"), ("would", "say"), ("'d", "guess"), ("would", "guess")})
# The writer's doubt as an aside next to a noun phrase: "it is a frisbee i think", "a bed, if
# I'm not mistaken". (Tokens as the parser splits them: "i 'm", "do n't".) Those starting with
# "i" count only at the end of a clause ("a cat i think is asleep" is a different sentence).
DOUBT_ASIDES: tuple[str, ...] = (
    "i think", "i guess", "i believe", "i suppose", "i 'm not sure", "i am not sure",
    "not sure", "i can not tell", "i cannot tell", "i ca n't tell", "i do n't know",
    "i dont know", "if i 'm not mistaken", "if i am not mistaken", "hard to say",
    "hard to tell", "hard to see", "it is not clear", "it 's not clear", "one would guess",
    "one can guess", "i 'd guess", "i would guess", "i 'd say", "i would say", "one would say",
    "i 'm guessing", "i am guessing", "i bet", "i reckon", "i suspect", "i imagine")
# A rare word of each doubt aside, to skip captions that have none.
DOUBT_ASIDE_WORDS: frozenset[str] = frozenset({"i", "sure", "mistaken", "hard", "clear",
                                               "guess", "say"})
# Nouns whose "that"-clause is a possibility, not a claim: "there is a chance that a bird is
# nearby".
HEDGE_NOUNS: frozenset[str] = frozenset({"chance", "possibility", "likelihood", "probability"})
# Adjectives that hedge the noun they modify: "a possible dog", "a probable person".
HEDGE_NOUN_ADJECTIVES: frozenset[str] = frozenset({"possible", "probable", "potential",
                                                   "presumed", "suspected", "likely"})
# Counts as words, for a count matched against the things listed after it.
NUMBER_WORDS: dict[str, int] = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "2": 2,
                                "3": 3, "4": 4, "5": 5, "6": 6}
# Words before "to" that make it a preposition: "next to bowl" (an article-less caption) is no
# infinitive "to bowl".
TO_PREPOSITION_HEADS: frozenset[str] = frozenset({"next", "close", "closer", "addition",
                                                  "adjacent", "due", "according", "similar"})
