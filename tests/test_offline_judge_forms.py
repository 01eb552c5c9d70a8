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
    # Round 2 (another project's captions, COCO's human captions, other styles).
    # Alternatives inside a hedge on an asserted anchor: which object it is stays open.
    ("There is a brown animal, possibly a horse or a cow, in the field.", "horse", 0, "hedged"),
    # A contrast denies the second object; a list-style field can deny its object.
    ("The girl is holding an umbrella, not a kite.", "kite", 0, "negation"),
    ("Scene contents:\n- Cars: two, parked\n- People: none visible", "People", 0, "negation"),
    ("Dogs: no. Cats: one, on the sofa.", "Dogs", 0, "negation"),
    ("The yard is quiet without any people present.", "people", 0, "negation"),
    # What a statue holds, and what a screen's programme shows, are depicted.
    ("The statue in the plaza is holding a bicycle.", "bicycle", 0, "depictive"),
    ("The TV is playing a movie featuring a horse.", "horse", 0, "depictive"),
    # Kinds: a comparison with the typical one, a bare plural that is "a common sight".
    ("The taxi is yellow, like a typical city bus.", "bus", 0, "generic"),
    ("Seagulls fly over the pier. Birds are a common sight at beaches like this.", "Birds", 0,
     "generic"),
    # A question asks; answered "No", it denies (round 32).
    ("Q: Is there a cat on the bed?", "cat", 0, "hedged"),
    ("Q: Is there a cat on the bed? A: No.", "cat", 0, "negation"),
    # Forms of the guide's definitions checked one by one: first-person belief, a hedging
    # adjective, "likely" as a predicate with a place, a picture put on a surface.
    ("I think there is a cat under the table.", "cat", 0, "hedged"),
    ("A possible dog lies in the grass.", "dog", 0, "hedged"),
    ("A person is likely inside the car.", "person", 0, "hedged"),
    ("The mug has a cat printed on it.", "cat", 0, "depictive"),
    ("A dog is painted on the wall.", "dog", 0, "depictive"),
    # A hedge adverb in a where-clause covers its subject; a modal there is a habit.
    ("A light hangs over the road where cars seemingly wait.", "cars", 0, "hedged"),
    ("A street where cars may park.", "cars", 0, "generic"),
    # Round 4. A raising verb with a placing participle hedges its indefinite subject (also
    # parsed with the verb as an auxiliary); an animal made of a material is a representation.
    ("A few bottles appear scattered across the room.", "bottles", 0, "hedged"),
    ("A cat seems perched on the fence.", "cat", 0, "hedged"),
    ("The cow is made of plastic and hangs from a wire.", "cow", 0, "depictive"),
    ("A horse carved out of wood stands in the yard.", "horse", 0, "depictive"),
    # Consonant-y verbs ("implies", "carries") inflect like the rest.
    ("The presence of a leash implies a dog.", "dog", 0, "hedged"),
    # A possibility noun; out of sight, out of frame.
    ("There is a chance that a bird is nearby.", "bird", 0, "hedged"),
    ("There is a possibility of a dog hiding in the bushes.", "dog", 0, "hedged"),
    ("A leash lies on the floor; the dog is nowhere to be seen.", "dog", 0, "negation"),
    ("A man holds a leash, but the dog is out of frame.", "dog", 0, "negation"),
    # A ban names what is kept out (a negation cue wins over an inference or a habit).
    ("This indicates that bicycles are not allowed in the area.", "bicycles", 0, "negation"),
    ("It may be a place where vehicles are not permitted.", "vehicles", 0, "negation"),
    # Written VLM-style captions (round 5). A depiction referred to again by a definite noun.
    ("A framed photo of a horse hangs above the bed. The horse is white.", "horse", 1,
     "depictive"),
    # A story's "about"; a pattern of animals; a medium the participle was not hung on.
    ("The TV shows a documentary about elephants.", "elephants", 0, "depictive"),
    ("The curtain has a pattern of small birds on it.", "birds", 0, "depictive"),
    ("There is a poster on the door of the shop showing a dog.", "dog", 0, "depictive"),
    ("There is an advertisement showing a family on a beach, with a boy holding a surfboard.",
     "surfboard", 0,
     "depictive"),
    # Absence: "not in the picture", "nobody has one", "missing".
    ("The people who left the bags are not in the picture.", "people", 0, "negation"),
    ("It is raining, but nobody is holding an umbrella.", "umbrella", 0, "negation"),
    ("Two slices of cake are on the plate and the third cake is missing.", "cake", 1,
     "negation"),
    ("A man sits on a bench. The person who owns the bag is not visible.", "person", 0,
     "negation"),
    # Kinds and habits.
    ("Fresh pizza is a popular choice for lunch.", "pizza", 0, "generic"),
    ("It shows that zebras are well adapted to the heat.", "zebras", 0, "generic"),
    ("These kinds of boats are often used for fishing.", "boats", 0, "generic"),
    ("The picture captures the habit of cats sleeping in boxes.", "cats", 0, "generic"),
    ("A lawn where families often come to walk their dogs.", "dogs", 0, "generic"),
    # Purpose of a "so that" clause; an inference with "must have".
    ("The gate is open so that cars can pass.", "cars", 0, "purpose"),
    ("The plates are empty, so someone must have eaten the cake.", "someone", 0, "hedged"),
    # A hedge on more instances than those asserted later.
    ("There might be more sheep behind the hill. The sheep in front are white.", "sheep", 0,
     "hedged"),
    # A further instance is no type hedge, with or without an earlier one of its kind.
    ("A cat sleeps on the pillow. The lump could be a second cat.", "cat", 1, "hedged"),
    ("In the distance, a woman walks, and there seems to be a child ahead of her.", "child", 0,
     "hedged"),
    # Shared material modifiers, printed fabric, patterns, stories, videos, rubber toys.
    ("There are plastic cows and sheep on the shelf.", "sheep", 0, "depictive"),
    ("A towel printed with small boats.", "boats", 0, "depictive"),
    ("A shirt with a pattern of little cars.", "cars", 0, "depictive"),
    ("The TV plays a cartoon in which a horse runs.", "horse", 0, "depictive"),
    ("The phone is playing a video of a cat.", "cat", 0, "depictive"),
    ("A rubber duck floats in the tub.", "duck", 0, "depictive"),
    # Absence and bans once more; an "in case" clause; "like most".
    ("The cups seem to be missing.", "cups", 0, "negation"),
    ("None of the guests are holding umbrellas.", "umbrellas", 0, "negation"),
    ("The shop no longer sells bicycles.", "bicycles", 0, "negation"),
    ("A roll of towels hangs there in case a child spills juice.", "child", 0, "purpose"),
    ("The seats are arranged so that people have a good view.", "people", 0, "purpose"),
    ("A dog sleeps in the sun, like most dogs do.", "dogs", 0, "generic"),
    # A person introduced by what they do, inside an inference; the next one of a kind.
    ("The desk is empty, suggesting that the person who works here went home.", "person", 0,
     "hedged"),
    ("A train leaves the station. People wait for the next train.", "train", 1, "purpose"),
    # Read word by word where the parse fails: "no" before the mention, a vague look-alike.
    ("A toaster sits on the counter. There is no oven visible in the scene.", "oven", 0,
     "negation"),
    ("A bag lies on the grass, and something that looks like a kite is caught in a branch.",
     "kite", 0, "hedged"),
    # An alternative said after the mention; a hedge before its preposition.
    ("He is carrying a suitcase, or maybe a briefcase, in his hand.", "suitcase", 0, "hedged"),
    ("She may be going to a picnic, perhaps with a bottle of wine.", "bottle", 0, "hedged"),
    # "must have" in a relative clause; a described person under a hedge; "means that".
    ("The bench is empty except for a newspaper that someone must have left behind.",
     "someone", 0, "hedged"),
    ("No one else is here, so the person who was watching TV may have stepped out.", "person",
     0, "hedged"),
    ("A handbag hangs there, which means that a woman may be sharing the room.", "woman", 0,
     "hedged"),
    # A kind's habits.
    ("The horse is tired. Horses like to eat grass all day.", "Horses", 0, "generic"),
    # What a menu lists; what a painted figure does.
    ("The chalkboard menu lists hot dogs and pizza.", "pizza", 0, "depictive"),
    ("The wall has a mural of a beach, and a painted dog riding a skateboard.", "skateboard", 0,
     "depictive"),
    # A programme's "with"; one of several photos; the rest of what a mural depicts.
    ("The TV is showing a news program with a woman sitting behind a desk.", "woman", 0,
     "depictive"),
    ("One of the photos shows a smiling girl holding a cat.", "cat", 0, "depictive"),
    ("The mural depicts a girl, along with a cartoon cat and several birds flying overhead.",
     "birds", 0, "depictive"),
    # An expletive is no scene; "what might be"; "either ... or"; "no items like".
    ("The image depicts a train, and there appear to be a few cows beside the tracks.", "cows",
     0, "hedged"),
    ("A man skis down, and what might be a snowboard is sticking out of the snow.",
     "snowboard", 0, "hedged"),
    ("Far out on the water there is either a small boat or a buoy.", "boat", 0, "hedged"),
    ("There are no personal items like toothbrushes or cell phones lying around.",
     "toothbrushes", 0, "negation"),
    ("A child wears a shirt with a giraffe printed across the front.", "giraffe", 0,
     "depictive"),
    # Hedging idioms.
    ("The kitchen was recently used, as though someone had just finished a meal.", "someone",
     0, "hedged"),
    ("In all likelihood, a person is still nearby.", "person", 0, "hedged"),
    ("The lot holds few, if any, cars.", "cars", 0, "hedged"),
    ("A bird, if it is one, appears to be perched on the roof.", "bird", 0, "hedged"),
    ("A small dog is hiding under the bed, or so it seems.", "dog", 0, "hedged"),
    ("One could assume that a cat also lives in the house.", "cat", 0, "hedged"),
    ("There is a good chance a bicycle is leaning against the lamppost.", "bicycle", 0,
     "hedged"),
    # A presence denied through "appear"; a programme "where"; "one of which shows".
    ("The laptop itself does not appear to be in the scene.", "laptop", 0, "negation"),
    ("A TV is showing a nature program where a herd of elephants is crossing a river.",
     "elephants", 0, "depictive"),
    ("The fridge is covered with photographs, one of which shows a family and a horse.",
     "horse", 0, "depictive"),
    ("A poster on the wall advertises a resort with a large white boat sailing by.", "boat", 0,
     "depictive"),
    # Round 6: measures, "instead of", titles, a screen's story "with", "no X or Y", uses.
    ("A delivery truck nearly the size of a bus is parked there.", "bus", 0, "generic"),
    ("Some waves look as tall as a car.", "car", 0, "generic"),
    ("The giraffes look taller than a double-decker bus.", "bus", 0, "generic"),
    ("A boy slides down on a sled instead of skis.", "skis", 0, "negation"),
    ("A book titled 'The Cat in the Window' lies open.", "Cat", 0, "depictive"),
    ("The TV is showing a nature documentary, with a brown bear catching salmon.", "bear", 0,
     "depictive"),
    ("There is no microwave or oven visible.", "oven", 0, "negation"),
    ("A long counter on which customers can place their cups.", "cups", 0, "purpose"),
    ("A fenced field that cows might graze in.", "cows", 0, "purpose"),
    # Round 7: a participle of showing after a comma, fronted media, pronouns for a medium,
    # a toy named again, things gone, objects denied by a pronoun.
    ("There is a small painting above the sofa, depicting a horse in a field.", "horse", 0,
     "depictive"),
    ("A banner hangs over the gate, showing a giraffe and two zebras.", "zebras", 0,
     "depictive"),
    ("A monitor on the desk is playing a cartoon, with a cat chasing a mouse.", "cat", 0,
     "depictive"),
    ("The tablet shows a drawing of a garden with a bench.", "bench", 0, "depictive"),
    ("On the billboard, a woman holds a cup of coffee.", "woman", 0, "depictive"),
    ("In the mural there is a large elephant.", "elephant", 0, "depictive"),
    ("Some postcards lie on the table; one of them shows a sailing boat.", "boat", 0,
     "depictive"),
    ("A teddy bear leans on the pillow. The bear wears a red bow.", "bear", 0, "depictive"),
    ("A robotic dog stands on the counter.", "dog", 0, "depictive"),
    ("The bus that picked up the children has already departed.", "bus", 0, "negation"),
    ("Only crumbs remain, as the cake has already been eaten.", "cake", 0, "negation"),
    ("A plate holds the stem of an apple she has already eaten.", "apple", 0, "negation"),
    ("There are probably more cars down the road, but they are not visible in the photo.",
     "cars", 0, "negation"),
    ("A kid plays with a plastic toy airplane set on the rug.", "airplane", 0, "depictive"),
    ("A TV hangs in the corner, and it is showing a cartoon with a horse.", "horse", 0,
     "depictive"),
    ("The kiosk has a big poster on its door, featuring a man holding a surfboard.", "surfboard",
     0, "depictive"),
    ("Next to the door there is a painting of a boat, and a cat sleeps under it.", "boat", 0,
     "depictive"),
    ("The shelf holds plush toys such as a small giraffe.", "giraffe", 0, "depictive"),
    ("A notice on the door informs guests that dogs are not allowed inside.", "dogs", 0,
     "depictive"),
    ("A screen above the gate indicates that the next bus leaves at noon.", "bus", 0,
     "depictive"),
    ("A board by the road carries a flyer for a missing dog.", "dog", 0, "depictive"),
    ("A horse, or what might be a large statue, stands on the hill.", "horse", 0, "hedged"),
    # An inference after a picture hedges what it infers (not a picture); one that is not a
    # sign's reads no text.
    ("A painting of a cat hangs there, which suggests that a cat lives in the house.", "cat", 1,
     "hedged"),
    ("The wet street indicates that a car drove by.", "car", 0, "hedged"),
    ("The beach is usually crowded in July, when people come to swim.", "people", 0, "generic"),
    # Round 8: a fronted medium over joined clauses, a relative's medium, a video call,
    # habits on an adjective, broken lists of absence.
    ("In the painting, a woman is holding an umbrella, while a dog runs beside her.", "dog", 0,
     "depictive"),
    ("On the big screen, a car is racing along a track, followed by a motorcycle.", "motorcycle",
     0, "depictive"),
    ("There is a sign on the left side that displays the outline of a horse.", "horse", 0,
     "depictive"),
    ("A tablet on the table is showing a video call with a man and his cat.", "cat", 0,
     "depictive"),
    ("Cafes like this are typically busy at noon, when people come for lunch.", "people", 0,
     "generic"),
    ("The absence of parked cars and bicycles suggests an early hour.", "bicycles", 0,
     "negation"),
    ("Neither a spoon nor any forks are on the table.", "forks", 0, "negation"),
    # Round 9 (other models' styles): a softened denial, "no sign of X or Y".
    ("There don't seem to be any cars on the street.", "cars", 0, "negation"),
    ("There is no sign of a cat or a dog in the yard.", "dog", 0, "negation"),
    # A picture said to be somewhere is a thing in the scene, not the captioned image; what
    # a statue referred to as "it" holds; what a hedged watcher watches go by.
    ("A photo of a dog is on the refrigerator.", "dog", 0, "depictive"),
    ("Photos of a baby and a cat are held to the refrigerator with magnets.", "cat", 0,
     "depictive"),
    ("A photo of a woman hangs above the bed.", "woman", 0, "depictive"),
    ("There is a statue of a chef near the door. It is holding a pizza.", "pizza", 0,
     "depictive"),
    ("A man stands by the tracks, where he might be watching trains pass by.", "trains", 0,
     "hedged"),
    # Rounds 10 and 11: a list item the parser hung on the verb after a depicted object; a
    # medium whose verb the parser read as a noun; the object of a habit's infinitive; examples
    # of what is absent; "appear" with a placing participle; "appears as"; a place is no anchor
    # that a hedged aside re-describes.
    ("A mural on the wall depicts a boat and some seagulls flying above it.", "seagulls", 0,
     "depictive"),
    ("An advertisement on the side of the bus displays a smiling cat.", "cat", 0, "depictive"),
    ("The beach is a place where kids often love to fly kites.", "kites", 0, "generic"),
    ("He sits quietly without any distractions like cell phones.", "cell phones", 0,
     "negation"),
    ("Two cups appear placed nearby.", "cups", 0, "hedged"),
    ("The shape in the corner appears as either two beds or a large sofa.", "beds", 0,
     "hedged"),
    ("He is looking at something off to the side, possibly a TV.", "TV", 0, "hedged"),
    # "without" read word by word when a run-on breaks the parse; whom a place is accessible
    # to; people walking past are whom a purpose is for, even when people were asserted; more
    # bears after a teddy bear are toys too.
    ("They stand apart at different distances from each other by themselves alone without any "
     "other people present yet visible herein.", "people", 0, "negation"),
    ("The toilets are accessible to people with disabilities.", "people", 0, "purpose"),
    ("Several pedestrians cross the street. A canopy hangs above, most likely providing shade "
     "for pedestrians walking by.", "pedestrians", 1, "purpose"),
    ("A large teddy bear sits on the couch. There are two smaller bears placed nearby.",
     "bears", 0, "depictive"),
    ("The blanket is empty, and the open basket suggests that people were here earlier.",
     "people", 0, "hedged"),
    ("There is a shelf for cups, plates and bowls.", "bowls", 0, "purpose"),
    # Round 13 (mentions with no cue word nearby): whom a notice addresses or a thing serves,
    # something resembling the object, an alternative after "another".
    ("A sign stands on the corner, giving directions to drivers and pedestrians.",
     "pedestrians", 0, "purpose"),
    ("The kayaks sit by the dock, where they can be easily reached by people passing by.",
     "people", 0, "purpose"),
    ("Two hikers carry backpack-like bags on their shoulders.", "backpack", 0, "hedged"),
    ("A cat sleeps on a rug. A lamp stands next to another chair or couch.", "couch", 0,
     "hedged"),
    # Round 14: what a shop sells; a bare list item after a definite article refers back to a
    # depiction like "the bears" would.
    ("A man walks past a store that sells bicycles and helmets.", "bicycles", 0, "generic"),
    # Things made for someone, named by an indefinite possessor.
    ("The photo shows a child's room with a small bed.", "child", 0, "purpose"),
    ("A dog's water bowl sits on the kitchen floor.", "dog", 0, "purpose"),
    # What people do, in a present-tense relative clause; a game on a screen; alternatives
    # after an anchor, with "some other", with a conjunct the tagger read as a verb, and
    # ", or at least something"; what a sign asks its readers to do.
    ("A plate of pasta, the kind of simple meal that people enjoy at home.", "people", 0,
     "generic"),
    ("The TV is showing a tennis match, with two men running across a blue court.", "men", 0,
     "depictive"),
    ("On the sofa lies a small animal, either a cat or a puppy.", "cat", 0, "hedged"),
    ("A dog or some other dark animal is sleeping under the bench.", "dog", 0, "hedged"),
    ("There is a bus or train in the distance.", "bus", 0, "hedged"),
    ("On the desk there is a laptop, or at least something that looks like one.", "laptop", 0,
     "hedged"),
    ("A sign on the door asks visitors to leave their dogs outside.", "dogs", 0, "depictive"),
    # A guess between two kinds re-describing a general word; pictograms.
    ("A safari vehicle, possibly a truck or a jeep, can be seen on the road.", "truck", 0,
     "hedged"),
    ("A small sign with a crossed-out dog hangs on the gate.", "dog", 0, "depictive"),
    ("The trail marker shows a pictogram of a person on skis.", "person", 0, "depictive"),
    ("A bronze statue of two horses stands in the square. The fountain, horses and benches "
     "make a pleasant scene.", "horses", 1, "depictive"),
    # Round 15 (short descriptions of two other VLMs): what made likenesses show, named in
    # apposition; a thing displayed on a screen; an embossed likeness.
    ("Two carved animal figures, a bear and a horse, hang from the ceiling.", "horse", 0,
     "depictive"),
    ("A cat paws at a dog that is shown on the screen of a tablet.", "dog", 0, "depictive"),
    ("A leather saddle with an embossed horse on its flap.", "horse", 0, "depictive"),
    ("The cafe window has a spray-painted bicycle next to its menu.", "bicycle", 0,
     "depictive"),
    ("A white painted bicycle marks the bike lane on the road.", "bicycle", 0, "depictive"),
    # Markdown lists (the style of chat VLMs): each line is read on its own.
    ("Objects in the kitchen:\n- a toaster\n- possibly a microwave on the shelf\n- a poster of "
     "a cat", "microwave", 0, "hedged"),
    # Round 16 (tuning misses and style changes): a count that makes an article-less list an
    # apposition; a cake named after what it is shaped as; a play structure made for children,
    # the parser reading "play" as an adjective; curly apostrophes; the same forms under a
    # heading, as list items and without articles.
    ("shelf holds two small, carved animal figures, brown bear and horse", "horse", 0,
     "depictive"),
    ("A chocolate bus cake sits on the counter.", "bus", 0, "depictive"),
    ("A teddy bear cake with pink frosting sits on a plate.", "teddy bear", 0, "depictive"),
    ("A puppy plays near a colorful children's play structure.", "children", 0, "purpose"),
    ("A children’s book lies open on the desk.", "children", 0, "purpose"),
    ("**Description:** A bench, possibly with a dog under it.", "dog", 0, "hedged"),
    ("- A cat sleeps on the sofa.\n- A poster of a horse hangs above it.", "horse", 0,
     "depictive"),
    ("dog holds toy carrot, possibly chewing carrot", "carrot", 1, "depictive"),
    ("A picture on the wall shows a football match, with a man kicking a ball.", "man", 0,
     "depictive"),
    ("There is a photo of a cow hanging on the wall.", "cow", 0, "depictive"),
    ("This is a framed photo of a dog.", "dog", 0, "depictive"),
    # Round 17 (tuning misses and the issue's hedged subjects): the pivot of a hedged "there"
    # that the parser made the subject of its participle; a raising verb with a placing
    # participle; a hedge adverb with a place adverb; a print named by a compound; a medium
    # "with" something "on it"; a habit's object in a prepositional phrase or possessed under a
    # hedge; an unidentified shape that "could be" something; a hedge in parentheses.
    ("Farther out, there seem to be some people swimming.", "people", 0, "hedged"),
    ("There appear to be two men standing near the bus.", "men", 0, "hedged"),
    ("A snowboard seems to be stuck in the snow near the trees.", "snowboard", 0, "hedged"),
    ("A hair dryer seems to be plugged in near the mirror.", "hair dryer", 0, "hedged"),
    ("A dog is probably nearby.", "dog", 0, "hedged"),
    ("He wears a black t-shirt with a large pizza slice printed on the front.", "pizza", 0,
     "depictive"),
    ("The child is wearing a t-shirt with a zebra on it.", "zebra", 0, "depictive"),
    ("She holds a phone, displaying the screen with two people on it.", "people", 0,
     "depictive"),
    ("A court with benches where players usually rest and drink from their bottles.",
     "bottles", 0, "generic"),
    ("The street looks like a quiet neighborhood where kids often ride their bikes.", "bikes",
     0, "generic"),
    ("The dark shape near the fence appears to be a dog.", "dog", 0, "hedged"),
    ("There is a dog (possibly) near the tree.", "dog", 0, "hedged"),
    ("The statue appears to be a horse.", "horse", 0, "depictive"),  # a likeness, not a hedge
    # A bare guess after a comma, articles dropped: a noun, not the verb "to bench".
    ("phone and keys lying on a flat wooden surface, probably bench", "bench", 0, "hedged"),
    # Without articles, "for people to rest" is still a kind, not the people said before.
    ("people walk past fence. bench nearby gives place for people to rest", "people", 1,
     "purpose"),
    ("woman holds cup or bowl near sink", "bowl", 0, "hedged"),  # alternatives, no articles
    # Round 18: a bygone era; a negation over a whole list; the writer's belief, said
    # impersonally; a clause on "likely"; stitched pictures; a with-phrase the parser hangs on
    # the depicting verb; whoever a place is for, with their things; what a thing is put up to
    # draw or keep off; a sentence-initial plural tagged a proper noun.
    ("It captures a moment from the past when trains were a primary mode of transportation.",
     "trains", 0, "generic"),
    ("He is riding without a helmet or a backpack.", "backpack", 0, "negation"),
    ("The man does not have a hat or an umbrella.", "umbrella", 0, "negation"),
    ("A cat and a dog are not visible.", "dog", 0, "negation"),
    ("The shelf is missing a vase.", "vase", 0, "negation"),
    ("It can be assumed that a cat is hiding under the bed.", "cat", 0, "hedged"),
    ("We can infer that a dog lives in the house.", "dog", 0, "hedged"),
    ("It is likely that a cat sleeps here.", "cat", 0, "hedged"),
    ("It is safe to assume that a dog lives here.", "dog", 0, "hedged"),
    ("A pillow with an embroidered cat.", "cat", 0, "depictive"),
    ("A framed photo shows a family with a dog.", "dog", 0, "depictive"),
    ("It is a great place for families to walk a dog.", "dog", 0, "purpose"),
    ("The park is a perfect place for people to walk their dogs.", "dogs", 0, "purpose"),
    ("A bird feeder hangs from the tree to attract birds.", "birds", 0, "purpose"),
    ("Zebras usually live in herds.", "Zebras", 0, "generic"),
    ("A sign warning of cows crossing.", "cows", 0, "depictive"),
    # A guess at an owner guesses at what the owner has; what is awaited to arrive is not
    # there yet, though the caption named it before.
    ("A bag lies on the sidewalk, possibly belonging to someone who parked their car nearby.",
     "car", 0, "hedged"),
    ("Pieces of luggage can be seen, as the people wait for their luggage to arrive.",
     "luggage", 1, "purpose"),
    ("There might be kids and their dogs nearby.", "dogs", 0, "hedged"),
    # What the kind does, said of the one in the picture; a habit, not a purpose.
    ("The horse is grazing, which horses do for most of the day.", "horses", 0, "generic"),
    ("Like many giraffes, this one has a long neck.", "giraffes", 0, "generic"),
    ("It is common for people to bring their dogs to the beach.", "dogs", 0, "generic"),
    ("The cat curled up in the sun, like most cats do.", "cats", 0, "generic"),
    ("The phone's wallpaper is a photo of a dog.", "dog", 0, "depictive"),
    ("The scattered toys suggest that children and their dogs play here.", "dogs", 0, "hedged"),
    ("The open door hints at the presence of a cat.", "cat", 0, "hedged"),
    # A sport named after the kind of thing raced.
    ("The image captures the thrilling nature of motorcycle racing.", "motorcycle", 0,
     "generic"),
    # Round 19: an alternative outside the vocabulary still leaves open which thing it is.
    ("A man is riding a horse or a donkey.", "horse", 0, "hedged"),
    ("A dog or a small fox sits near the dunes.", "dog", 0, "hedged"),
    # The adverb the parser hangs on the place; what a kind is known for doing; the thing
    # guessed at, referred back to in the same sentence.
    ("A cat is presumably under the table.", "cat", 0, "hedged"),
    ("The dog is a breed known for herding sheep.", "sheep", 0, "generic"),
    ("A laptop lies on a seat, likely inside a train, with reflections of the train's "
     "windows on its screen.", "train", 1, "hedged"),
    ("A laptop lies on a seat, likely inside a train, with reflections of the train's "
     "windows on its screen.", "train", 0, "hedged"),
    # Where the camera is guessed to be; what someone tries to find.
    ("The image appears to be taken from inside a car.", "car", 0, "hedged"),
    ("She is trying to find a taxi.", "taxi", 0, "purpose"),
    ("A man is waiting to hail a cab.", "cab", 0, "purpose"),
    ("Toy figures of a man and a dog sit on the table.", "man", 0, "depictive"),
    # Not come to the place the picture shows.
    ("The people are waiting; the train is not here yet.", "train", 0, "negation"),
    ("The bus has not arrived yet.", "bus", 0, "negation"),
    # "must" inferring what is.
    ("The driver is not visible, but there must be someone driving the car.", "someone", 0,
     "hedged"),
    ("A dog must be nearby.", "dog", 0, "hedged"),
    # Someone placed outside the picture by a modifier; a hedge still wins.
    ("The dog looks at someone off camera.", "someone", 0, "negation"),
    ("A person outside the frame throws a ball to the dog.", "person", 0, "negation"),
    ("A kite flies high, likely flown by someone outside the frame.", "someone", 0, "hedged"),
    ("It is hard to say whether there is a bottle on the table.", "bottle", 0, "hedged"),
    ("A painting, which depicts a horse, a dog, and a cat, hangs on the wall.", "cat", 0,
     "depictive"),
    ("Two boys play a game, with what might be their dog asleep on the floor.", "dog", 0,
     "hedged"),
    ("Many people come here to ski every weekend.", "people", 0, "generic"),
    # Denials: a plural read as a participle's compound, a fruit after "an apple or", "as for X,
    # none", a softened ban.
    ("There are no people swimming, and the dock is empty.", "people", 0, "negation"),
    ("The shelves are empty, without a single apple or orange in sight.", "orange", 0,
     "negation"),
    ("As for people or farm equipment, none are visible in the image.", "people", 0,
     "negation"),
    ("A narrow street leads off to the right, where cars don't seem to be allowed.", "cars", 0,
     "negation"),
    # Whoever an inference describes by what they do.
    ("The strings extend down, suggesting that the people flying them are standing outside "
     "the picture.", "people", 0, "hedged"),
    ("The seat is left up, which might indicate that a man was the last person to use the "
     "bathroom.", "person", 0, "hedged"),
    # Conditions: "unless" asserts nothing; "in case" says what a thing is there for.
    ("The cat would likely stay there unless a dog came into the room.", "dog", 0, "hedged"),
    ("Paper towels hang under the cabinet in case a child spills cereal.", "child", 0,
     "purpose"),
    ("A small dog is hiding under the bed, or so it seems from the pair of paws.", "dog", 0,
     "hedged"),
    # Likenesses made of candy; what a menu or a sign lists.
    ("The cake has candy figures of children peeking out of the windows.", "children", 0,
     "depictive"),
    ("A sign by the gate lists cats and dogs.", "dogs", 0, "depictive"),
    ("A menu hangs on the wall, listing seasonal drinks and a sandwich of the day.",
     "sandwich", 0, "depictive"),
    ("The room has a TV showing a man and a dog.", "dog", 0, "depictive"),
    ("This meal is healthy, as broccoli is rich in vitamins and fiber.", "broccoli", 0,
     "generic"),
    # One thing named two ways with a slash.
    ("A brown leather couch/chair stands against the wall.", "couch", 0, "hedged"),
    ("A brown leather couch/chair stands against the wall.", "chair", 0, "hedged"),
    # Round 20: a guess in the progressive is no capacity; "free from"; who a spot is popular
    # with, doing something with their things; who the kind of thing is for; what a thing is
    # put there to keep away; a raised hedge over a participle the parser makes a clause; what
    # has not yet pulled in; toys named by the verb's subject; vehicles made of toy materials;
    # a hedged with-phrase whose noun the parser makes a subject; the fruit in a sign's text.
    ("The man could be holding a cup.", "cup", 0, "hedged"),
    ("The road is free from cars.", "cars", 0, "negation"),
    ("A path that is popular with people walking their dogs.", "people", 0, "generic"),
    ("A path that is popular with people walking their dogs.", "dogs", 0, "generic"),
    ("It is the kind of match that kids play most weekends.", "kids", 0, "generic"),
    ("It captures the kind of party that every child looks forward to.", "child", 0,
     "generic"),
    ("A scarecrow stands in the field to keep birds away.", "birds", 0, "purpose"),
    ("A spot where locals often come to buy vegetables such as broccoli.", "broccoli", 0,
     "generic"),
    ("Several people appear gathered around a fire pit.", "people", 0, "hedged"),
    ("The next train has not yet pulled into the station.", "train", 0, "negation"),
    ("Several plush toys are on the bed, including a giraffe.", "giraffe", 0, "depictive"),
    ("Toys like a giraffe and a truck lie on the floor.", "truck", 0, "depictive"),
    ("There is a small bus made of wooden blocks.", "bus", 0, "depictive"),
    ("She may be off to a picnic, perhaps with a bottle of wine tucked away.", "bottle", 0,
     "hedged"),
    ('A sign near the gate reads "Fresh Eggs and Apples".', "Apples", 0, "depictive"),
    ("A bench for people who want to read a book.", "book", 0, "purpose"),
    ("These kinds of dogs are loyal.", "dogs", 0, "generic"),
    ("A bowl for a dog that is probably sleeping somewhere.", "dog", 0, "purpose"),
    ("There might be a cat that is hiding under the bed.", "cat", 0, "hedged"),
    ("A towel lies on the sand, possibly belonging to a person who is out in the water.",
     "person", 0, "hedged"),
    ("The dog seems to be missing.", "dog", 0, "negation"),
    ("A cat sits in the window, possibly a dog.", "dog", 0, "hedged"),
    # Which of two things a vague noun is, the first tagged an adjective; "one of them" after
    # the pictures a place phrase names.
    ("There is a small gadget that could be either a remote or a phone charger.", "remote", 0,
     "hedged"),
    ("The door is covered with stickers, one of them shows a dog.", "dog", 0, "depictive"),
    # Text in single quotes (where the tagger reads a quotation mark, not an apostrophe).
    ("A 'No Dogs Allowed' sign stands at the gate.", "Dogs", 0, "depictive"),
    ("A mug with the words 'I love my cat' sits on the desk.", "cat", 0, "depictive"),
    # The pivot of a "there is" that a hedged clause frames.
    ("It is possible that there are people inside the bus.", "people", 0, "hedged"),
    ("It's likely there is a dog in the yard.", "dog", 0, "hedged"),
    ("A bench for people, possibly tourists, sitting there.", "people", 0, "purpose"),
    # Round 21: a hedge inside a clause stated as a fact ("although", "while", "because")
    # covers its subject as in a main clause; a guess at what an object pressed against a place
    # is; what one listens to, made the subject of its participle; a screen "is showing" a
    # small clause; a pattern; a print on a package's face.
    ("The road is empty, although a bus might be parked around the corner.", "bus", 0,
     "hedged"),
    ("The kitchen is tidy, while a cat may be hiding behind the fridge.", "cat", 0, "hedged"),
    ("A woman holds something small against her cheek, probably a phone.", "phone", 0,
     "hedged"),
    ("An old woman sits on the porch, perhaps listening to birds singing in the garden.",
     "birds", 0, "hedged"),
    ("The television in the corner is showing a bear catching salmon in a stream.", "bear", 0,
     "depictive"),
    ("She wears a scarf patterned with tiny cats.", "cats", 0, "depictive"),
    ("A cracker box with a giraffe on the lid stands on the shelf.", "giraffe", 0,
     "depictive"),
    # Verbs of one syllable double their consonant ("planning", "shopping").
    ("The couple is planning to buy a new couch.", "couch", 0, "purpose"),
    # A list's own hedged item, also through its quantity; a guess at what a speck is.
    ("On the desk there is a lamp, a notebook and maybe a cup of tea.", "cup", 0, "hedged"),
    ("A bench, a lamp post and maybe a few bicycles line the path.", "bicycles", 0, "hedged"),
    ("Far away, a small speck in the sky could be an airplane.", "airplane", 0, "hedged"),
    # Who a spot is popular with, named by a relative clause.
    ("The lake is popular with people who sail boats.", "boats", 0, "generic"),
    ("A trail popular with hikers who bring their dogs.", "dogs", 0, "generic"),
    # Whoever a hedged clause describes; what one thing stands in place of.
    ("It seems that the person who lives here loves books.", "person", 0, "hedged"),
    ("The boy is eating soup from a mug instead of a bowl.", "bowl", 0, "negation"),
    ("She writes with a pencil rather than a keyboard.", "keyboard", 0, "negation"),
    # A guessed cause; what many people like to do; an inference in an aside after a purpose.
    ("The sink is full, possibly because a child spilled some juice.", "child", 0, "hedged"),
    ("Most evenings many people like to walk their dogs along this path.", "people", 0,
     "generic"),
    ("A chair that is too small for an adult, which suggests that the room belongs to a little "
     "girl.", "girl", 0, "hedged"),
    # Round 22: a passive's agent and a prepositional phrase under "not"; a raising verb with a
    # bare infinitive of place, as with "to be" and a participle.
    ("The sofa is not being used by a cat today.", "cat", 0, "negation"),
    ("She carries the books in her arms, not in a backpack.", "backpack", 0, "negation"),
    ("A vase seems to stand in the far corner.", "vase", 0, "hedged"),
    ("Notably absent from the kitchen counter is any toaster.", "toaster", 0, "negation"),
    # Whoever would reach a thing; what is expected to come; whom a thing gives a place.
    ("A jar of cookies sits on the low shelf, within reach for a child who wants a treat.",
     "child", 0, "purpose"),
    ("Travellers stand by the carousel, expecting their suitcases to come out.", "suitcases", 0,
     "purpose"),
    ("A shady tree offers cyclists a place to rest.", "cyclists", 0, "purpose"),
    # What a thing is put up to do to others; a re-description of a guessed-at thing.
    ("A tarp stretched over the market stall to keep people dry.", "people", 0, "purpose"),
    ("A traffic signal installed to regulate cars at the crossing.", "cars", 0, "purpose"),
    ("Behind the sofa there could be another animal, perhaps a cat.", "cat", 0, "hedged"),
    ("In the lobby stands a fiberglass giraffe painted with flowers.", "giraffe", 0, "depictive"),
    ("Folding chairs are stacked by the door so people can sit during the talk.", "people", 0,
     "purpose"),
    ("A framed snapshot of a dog hangs by the mirror.", "dog", 0, "depictive"),
    ("On the desk stands a bronze statuette of an elephant.", "elephant", 0, "depictive"),
    ("Three postcards are pinned to the board, each showing a horse.", "horse", 0, "depictive"),
    ("A low chain hung across the drive to keep cars out of the yard.", "cars", 0, "purpose"),
    # Plurals offered with "either"; a shape something is made into.
    ("Two hikers carry either backpacks or suitcases up the trail.", "suitcases", 0, "hedged"),
    ("A hedge trimmed into the form of a bicycle.", "bicycle", 0, "depictive"),
    # "what could be" with the noun's own words between, parsed as a clause's subject.
    ("A kettle is on the stove, and what could be two glazed donuts sit in a paper bag.",
     "donuts", 0, "hedged"),
    # Round 23: "either" before a plural and a singular; whoever would reach a thing, named by
    # an indefinite pronoun or "whichever"; a bare noun liked is the kind.
    ("A boy runs toward the lake holding either skis or a snowboard.", "snowboard", 0,
     "hedged"),
    ("Snacks are laid out on the coffee table, within reach of someone on the sofa.", "someone",
     0, "purpose"),
    ("Extra plates are stacked at the end for whichever child arrives late.", "child", 0,
     "purpose"),
    ("A girl who adores horses stands by the fence with a camera.", "horses", 0, "generic"),
    ("The shop window is a treat for any fan of teddy bears.", "teddy bears", 0, "generic"),
    ("A birthday card hints at his love for pizza.", "pizza", 0, "generic"),
    # A denied list whose items have participles the parser read as verbs; goods made for a
    # group, named by a plural possessive.
    ("The square is quiet, with no pigeons, parked bicycles or waiting buses in sight.",
     "buses", 0, "negation"),
    ("There are no other moored, drifting or sinking boats on the lake.", "boats", 0,
     "negation"),
    ("A pair of girls' sneakers sits by the front door.", "girls", 0, "purpose"),
    ("A men's jacket hangs on the hook behind the door.", "men", 0, "purpose"),
    # A picture placed before "is"; a photo "in which"; a monument's content; a likeness
    # made in or of a material.
    ("Pinned above the desk is a postcard-sized photo of a giraffe.", "giraffe", 0,
     "depictive"),
    ("A framed photo in which a woman holds a baby sits on the shelf.", "woman", 0,
     "depictive"),
    ("A statue of a soldier on a horse stands in the square.", "horse", 0,
     "depictive"),
    ("By the gate stands an elephant cast in concrete.", "elephant", 0, "depictive"),
    ("The cake carries a little bus made of sugar paste.", "bus", 0, "depictive"),
    # A vague thing seen, guessed at; whom a thing invites or helps; who is expected to join.
    ("Out on the lake there is a dark spot that might be a boat.", "boat", 0, "hedged"),
    ("A hammock hangs between two palms, inviting people to rest in the shade.", "people", 0,
     "purpose"),
    ("A low stool stands by the sink to help a child reach the tap.", "child", 0, "purpose"),
    ("She keeps looking at the door, expecting someone to join her for coffee.", "someone", 0,
     "purpose"),
    ("A pair of kids' backpacks hangs on the coat rack.", "kids", 0, "purpose"),
    # A depiction word the tagger read as an adjective; reliefs and embroidery; a list of
    # compounds before a depiction noun.
    ("There is another dog decal on the window.", "dog", 0, "depictive"),
    ("Over the door hangs a carved relief of three elephants.", "elephants", 0, "depictive"),
    ("A garden with bench, giraffe and elephant statues along the path.", "giraffe", 0,
     "depictive"),
    # A vague shape named by a hedge; "none of" the things present; "lacking in"; an absence
    # said after a list.
    ("The round shapes on the shelf are likely bowls.", "bowls", 0, "hedged"),
    ("None of the boats that usually moor here are visible.", "boats", 0, "negation"),
    ("The valley is entirely lacking in cows or sheep.", "sheep", 0, "negation"),
    ("A quiet lane, with bicycles and cars wholly absent from it.", "cars", 0, "negation"),
    # "hard to say" after a list, whatever the parser takes for the saying thing.
    ("A lamp, a rug and a cushion are by the wall, and it is hard to say whether there is a "
     "dog under the blanket.", "dog", 0, "hedged"),
    # What a screen or a canvas shows, in an "on which" clause.
    ("Fans gather below a giant screen on which a man is kicking a ball.", "man", 0,
     "depictive"),
    # Round 24: a food or a vehicle of what none is made of; more sculptors' materials.
    ("A plaster pizza sits in the window of the shop.", "pizza", 0, "depictive"),
    ("A small plastic train sits on top of the cake.", "train", 0, "depictive"),
    ("A felt duck is tucked into the basket.", "duck", 0, "depictive"),
    ("Two cast-iron bears decorate the top of the clock.", "bears", 0, "depictive"),
    # What a named thing is said to be; what something is shaped as or modeled on; what a
    # thing only mimics.
    ("The train on the shelf is a plastic model.", "train", 0, "depictive"),
    ("The horse on the seat is part of the sculpture.", "horse", 0, "depictive"),
    ("The cake is sculpted as a steam train.", "train", 0, "depictive"),
    ("Two towels folded into swans lie on the bed.", "swans", 0, "depictive"),
    ("A chair with armrests carved as horse heads.", "horse", 0, "depictive"),
    ("A red sculpture modeled on a horse stands in the park.", "horse", 0, "depictive"),
    ("The tall red structure only mimics a chair.", "chair", 0, "depictive"),
    # Pictures stenciled or engraved into a surface, or painted on one by someone.
    ("A cake with a train stenciled on the frosting.", "train", 0, "depictive"),
    ("A horse engraved into the wooden backrest.", "horse", 0, "depictive"),
    ("Someone painted a little red train on its side.", "train", 0, "depictive"),
    # Written words; what a picture's subject is; photos after the first sentence; a
    # likeness's modifier on its measure noun; what moves on a screen.
    ("A storefront with the word bicycles lettered across its window.", "bicycles", 0,
     "depictive"),
    ("A picture book whose cover art is a blue train.", "train", 0, "depictive"),
    ("The image shows an open suitcase. Faded snapshots of a young man lie inside it.", "man",
     0, "depictive"),
    ("A sign with a cartoon slice of pizza hangs above the door.", "pizza", 0, "depictive"),
    ("The kitten paws at the laptop because a puppy is bouncing around on the screen.",
     "puppy", 0, "depictive"),
    # A way to travel; "so ... can" as the parser's complement or root.
    ("The bike racks encourage cycling over commuting by car.", "car", 0, "generic"),
    ("A ladder leads down to the water, placed so people can climb in easily.", "people", 0,
     "purpose"),
    ("A bench placed so people can sit on it.", "people", 0, "purpose"),
    ("Several mugs hanging on hooks, placed so a person can grab one easily.", "person", 0,
     "purpose"),
    # What someone appears to have in a small clause; boats that appear moored.
    ("She appears to have a backpack slung over her shoulder.", "backpack", 0, "hedged"),
    ("A few boats appear moored near the pier.", "boats", 0, "hedged"),
    # What a thing guards from, slows or controls; what is searched for, awaited or hoped for;
    # whom a thing is written, sized or aimed for.
    ("Cones were placed around the bicycle to shield it from any cars that might pass.",
     "cars", 0, "purpose"),
    ("Speed bumps were installed on the street to slow down cars.", "cars", 0, "purpose"),
    ("Everyone looks down the tracks in anticipation of the next train.", "train", 0,
     "purpose"),
    ("The group glances down the road in hopes of catching a bus.", "bus", 0, "purpose"),
    ("She checks her watch, hoping someone will arrive soon.", "someone", 0, "purpose"),
    ("The book was written with children in mind.", "children", 0, "purpose"),
    ("A small kid-sized table stands in the corner.", "kid", 0, "purpose"),
    ("A storybook aimed at young children lies on the desk.", "children", 0, "purpose"),
    # What places of the kind shown draw or are used by.
    ("On windy days, beaches like this usually draw people who fly kites.", "kites", 0,
     "generic"),
    ("Paths like this are typically used by people who ride bikes.", "bikes", 0, "generic"),
    # A likeness that takes a form or represents; an outline; a pretend or toy version.
    ("On the shelf stands a figurine that takes the form of a horse.", "horse", 0,
     "depictive"),
    ("The two sculptures represent a zebra and a giraffe.", "giraffe", 0, "depictive"),
    ("A neon outline of a bicycle glows in the shop window.", "bicycle", 0, "depictive"),
    ("The girl types on a pretend laptop with big buttons.", "laptop", 0, "depictive"),
    ("A cat sleeps inside a toy version of a fishing boat.", "boat", 0, "depictive"),
    # Embossed or piped pictures; what is printed there, said first; a sign's decoration.
    ("The saddle's flap is embossed with the head of a horse.", "horse", 0, "depictive"),
    ("The cake is piped with a blue train.", "train", 0, "depictive"),
    ("Printed on the side of the mug is a smiling dog.", "dog", 0, "depictive"),
    ("A wooden sign hangs above the door, decorated with a comb and a pair of scissors.",
     "scissors", 0, "depictive"),
    # Castings and marionettes; terracotta and gingerbread; a die-cast or play vehicle.
    ("A bronze casting of a horse stands beside the bench.", "horse", 0, "depictive"),
    ("Two marionettes of horses dangle on strings.", "horses", 0, "depictive"),
    ("A terracotta horse stands in the glass case.", "horse", 0, "depictive"),
    ("A gingerbread train sits on the party table.", "train", 0, "depictive"),
    ("A die-cast bus sits on the shelf.", "bus", 0, "depictive"),
    # What a named thing is, by its maker's word; part of a poster; people on a screen.
    ("Each bird on the pond is a carved wooden duck.", "bird", 0, "depictive"),
    ("The bicycles in the window are part of a poster.", "bicycles", 0, "depictive"),
    ("The people in the room are on a TV.", "people", 0, "depictive"),
    ("A soda ad plays, with a giant bottle fizzing across the screen.", "bottle", 0,
     "depictive"),
    ("A kitten sits beside a laptop on which a dog is shown.", "dog", 0, "depictive"),
    # Drawn or knitted with a material; a photo newly introduced after the first sentence.
    ("On the cake there is a train drawn with cream.", "train", 0, "depictive"),
    ("She wears a sweater knitted with a little red train.", "train", 0, "depictive"),
    ("The image shows an open wallet. - A small photo of a smiling man in the pocket.", "man",
     0, "depictive"),
    # A tag list's guesses: a hedge right after the noun, a question mark.
    ("dessert table, bowls of berries, cakes perhaps, pink bunting", "cakes", 0, "hedged"),
    ("park, young woman, blurry blue object (a frisbee?), picnic blanket", "frisbee", 0,
     "hedged"),
    ("beach, rider in a wetsuit, surfboard or kiteboard?, kite in the sky", "surfboard", 0,
     "hedged"),
    ("living room, armchair, someone possibly seated by the lamp, dim light", "someone", 0,
     "hedged"),
    ("Two dogs in a yard, a frisbee perhaps lying between them.", "frisbee", 0, "hedged"),
    # "hint that" read as a noun and its clause.
    ("Headlight streaks from the long exposure hint that vehicles may have passed through.",
     "vehicles", 0, "hedged"),
    ("The edge of a chair and a shadow hint that another person may be watching.", "person",
     0, "hedged"),
    # A tag list's absences; "zero"; people who do not appear.
    ("home office, monitor, laptop, mouse absent, daylight", "mouse", 0, "negation"),
    ("museum gallery, marble statues, zero people, morning light", "people", 0, "negation"),
    ("The cat is alone on the couch; people don't appear anywhere in the shot.", "people", 0,
     "negation"),
    # What a line keeps back from; what shelves are sized for.
    ("The yellow line is there to keep passengers back from an oncoming train.", "train", 0,
     "purpose"),
    ("The shelves are sized to hold luggage.", "luggage", 0, "purpose"),
    # Who usually uses a thing; what a kind is for; a bygone time.
    ("city intersection, junction heavily used by pedestrians, newsstand", "pedestrians", 0,
     "generic"),
    ("It is a marine supply store, the sort of place where owners of boats stock up.", "boats",
     0, "generic"),
    ("In those days trains were the main way to travel.", "trains", 0, "generic"),
    # A teddy bear of bronze or fondant is a figure of the toy.
    ("A bronze teddy bear sits on the bench in the park.", "teddy bear", 0, "depictive"),
    ("Cupcakes topped with fondant teddy bears fill the tray.", "teddy bears", 0, "depictive"),
    ("backyard party, paper horse piñata hanging from a tree, kids with a stick", "horse", 0,
     "depictive"),
    # A guess worded as a likeness or as the writer's doubt.
    ("Far off in the haze floats something akin to a rowing boat.", "boat", 0, "hedged"),
    ("By the fence stands a dark shape that could pass for a cow.", "cow", 0, "hedged"),
    ("The soup is dotted with orange flecks suggestive of carrots.", "carrots", 0, "hedged"),
    ("Behind the counter one can guess at a few bottles on a shelf.", "bottles", 0, "hedged"),
    ("A white mug sits on the desk; I'd say it's a cup for tea.", "cup", 0, "hedged"),
    ("the girl is reaching up, in her hand is red thing, it is frisbee i think, on the grass",
     "frisbee", 0, "hedged"),
    ("The dog sleeps on something soft, a bed, if I'm not mistaken, near the window.", "bed", 0,
     "hedged"),
    ("Two vases, if I'm not mistaken, sit on the top shelf.", "vases", 0, "hedged"),
    # A place's use in a where-clause with "would"/"could"; a guess with "might" about a thing.
    ("The bench faces the lake, a spot where people would sit and feed the ducks.", "people", 0,
     "purpose"),
    ("The drawer, where a few spoons might be stored, is half open.", "spoons", 0, "hedged"),
    ("The counter, where a woman may have left her keys, is tidy.", "woman", 0, "hedged"),
    ("The tram stops at the corner where people would usually wait.", "people", 0, "generic"),
    # What something is set so that someone can do; what it keeps off; whoever would reach it.
    ("The rack is mounted low so children can reach it.", "children", 0, "purpose"),
    ("A crib is built so small children can sleep safely.", "children", 0, "purpose"),
    ("The cups are lined up so a person could grab one on the way out.", "person", 0,
     "purpose"),
    ("A low wall shields the playground from any passing trucks.", "trucks", 0, "purpose"),
    ("A fence was built to protect the garden from roaming sheep.", "sheep", 0, "purpose"),
    ("Cookies sit on the table within reach of any child who walks by.", "child", 0,
     "purpose"),
    # Absences said by "missing any" and "nowhere in sight".
    ("The parking lot is silent, missing any cars at this hour.", "cars", 0, "negation"),
    ("A ball lies on the lawn with its owner, a dog, nowhere in sight.", "dog", 0, "negation"),
    # Likenesses: a list made of a material, forms carved into heads, things sculpted like
    # something, what a statue's figure or a stone figure holds, a pictured rider's board.
    ("The mobile has a giraffe and an elephant made of felt.", "giraffe", 0, "depictive"),
    ("The bench's ends are carved into the heads of two lions and a horse.", "horse", 0,
     "depictive"),
    ("The birthday cake is sculpted like a red bus.", "bus", 0, "depictive"),
    ("A statue of a boy in a cap holding an umbrella stands in the square.", "umbrella", 0,
     "depictive"),
    ("The fountain shows a bronze woman clutching a handbag.", "handbag", 0, "depictive"),
    ("The sign above the door has a drawing of a man on a skateboard.", "skateboard", 0,
     "depictive"),
    # Whom a thing caters to; an owner guessed at; a tag list's or a run-on's "none".
    ("The cafe has low tables and beanbags, clearly catering to children.", "children", 0,
     "purpose"),
    ("A bicycle leans on the rail, and its owner may be a man fishing nearby.", "man", 0,
     "hedged"),
    ("beach at dusk, two chairs, umbrella folded, people none, quiet", "people", 0,
     "negation"),
    ("the kitchen is clean and there is fridge, dog or cat none at all", "cat", 0,
     "negation"),
    ("The road has one bus on it, with cars and trucks missing from the other lanes.", "trucks",
     0, "negation"),
    ("The stable could hold many horses, none are visible now.", "horses", 0, "negation"),
    # What is inside a picture named first; what a statue is of.
    ("In the painting is a woman holding a cat.", "woman", 0, "depictive"),
    ("In the mural above the counter, a horse gallops across a field.", "horse", 0,
     "depictive"),
    ("On the laptop screen is a dog running on a beach.", "dog", 0, "depictive"),
    ("The small bronze statue on the desk is of a bird.", "bird", 0, "depictive"),
    ("A round sign bearing a black motorcycle stands at the gate.", "motorcycle", 0,
     "depictive"),
    ("An old canvas rendering a woman with an umbrella hangs in the hall.", "woman", 0,
     "depictive"),
    # A guess in a relative clause; whichever bus comes next; a likeness guessed at.
    ("The curtain, behind which a child might be hiding, moves a little.", "child", 0,
     "hedged"),
    ("Commuters wait at the stop, hoping that the next bus will come soon.", "bus", 0,
     "purpose"),
    ("On the sill sit two round shapes reminiscent of oranges.", "oranges", 0, "hedged"),
    ("A painting of a woman in a blue coat sitting at her table with a cup of tea hangs there.",
     "cup", 0, "depictive"),
    # What a cone warns of; seats for whoever is expected.
    ("A flashing light is mounted there to warn drivers of an approaching train.", "train", 0,
     "purpose"),
    ("The hall has forty chairs, enough seating for each child expected at the party.",
     "child", 0, "purpose"),
    # A thing the caption goes on to call a likeness, by its name or by a pronoun.
    ("there is dog sitting on the porch, dog is ceramic sculpture, door behind", "dog", 0,
     "depictive"),
    ("A sheep stands by the fence near the barn. The sheep is made of wood.", "sheep", 0,
     "depictive"),
    ("A bird perches on the fountain's rim. The bird is a bronze sculpture.", "bird", 0,
     "depictive"),
    ("A horse stands in the middle of the garden; it is a bronze statue.", "horse", 0,
     "depictive"),
    ("In the plaza stands a tall sculpture that resembles a giraffe.", "giraffe", 0,
     "depictive"),
    # A presence only inferred or allowed for; a guess in a rarer word; the writer's bet.
    ("The presence of cars in the area is suggested by the traffic light.", "cars", 0,
     "hedged"),
    ("The presence of another dog there can only be guessed at.", "dog", 0, "hedged"),
    ("The presence of a few sheep behind the barn is possible.", "sheep", 0, "hedged"),
    ("It is conceivable that a few bowls are also on the counter.", "bowls", 0, "hedged"),
    ("The rider stands on what is ostensibly a surfboard.", "surfboard", 0, "hedged"),
    ("Beside the laptop sits what I'd guess is a cup.", "cup", 0, "hedged"),
    ("A bench by the window holds a folded blanket and a small book, I bet.", "book", 0,
     "hedged"),
    ("A kitten bats at a toy mouse and a cup, I'm guessing.", "cup", 0, "hedged"),
    # What is awaited: expected to arrive, until it comes, hoped to show up; the next one.
    ("Travelers stand by the belt, where their luggage is expected to appear shortly.",
     "luggage", 0, "purpose"),
    ("A few people stand on the platform until the train arrives.", "train", 0, "purpose"),
    ("Everyone is hoping their suitcase shows up first.", "suitcase", 0, "purpose"),
    ("Commuters are lined up, ready to hop on the next train that rolls in.", "train", 0,
     "purpose"),
    # Whom a placing serves: a passive's agent, any kid, a setting in which people would sit.
    ("The boats are moored so that they can be boarded by people arriving from the pier.",
     "people", 0, "purpose"),
    ("The slide is scaled to be climbed on by a child rather than by adults.", "child", 0,
     "purpose"),
    ("Lots of benches by the field so any tired kid can sit down and rest.", "kid", 0,
     "purpose"),
    ("The chairs face the TV, creating a setting in which people would sit comfortably.",
     "people", 0, "purpose"),
    # A list's first item the parser makes a modifier of the last.
    ("Not a single pedestrian or moving vehicle is visible along the street.", "pedestrian", 0,
     "negation"),
    # The passive of depicting; a screen's content; toys of soft materials; a mobile.
    ("A small steam train is depicted along the side of the hydrant.", "train", 0,
     "depictive"),
    ("A brown horse is depicted in sculptural form on the chair's seat.", "horse", 0,
     "depictive"),
    ("A person riding a skateboard is drawn in black outline below the words.", "person", 0,
     "depictive"),
    ("A black dog is displayed on the laptop's screen.", "dog", 0, "depictive"),
    ("Two plushie bears sit side by side on the shelf.", "bears", 0, "depictive"),
    ("A kitten gnaws on a fabric carrot.", "carrot", 0, "depictive"),
    ("A horse mobile hangs over the crib.", "horse", 0, "depictive"),
    ("The bathroom walls have elephant wallpaper.", "elephant", 0, "depictive"),
    # An answer's hedge word before a semicolon leaves the clause's own modal in force.
    ("Probably; there might be a dog behind the fence.", "dog", 0, "hedged"),
    ("Maybe; there could be a person using it just outside the frame.", "person", 0, "hedged"),
    # What a thing is meant to stop; an answer's "So that ..."; a canvas; a rocking horse.
    ("The posts are there to keep delivery trucks from hitting the corner.", "trucks", 0,
     "purpose"),
    ("A lid is there to keep a cat from falling into the bowl.", "cat", 0, "purpose"),
    ("So that many people can sit on it at once.", "people", 0, "purpose"),
    ("She is painting a canvas of a horse in the garden.", "horse", 0, "depictive"),
    ("A child rides a rocking horse in the playroom.", "horse", 0, "depictive"),
    ("A carousel horse painted white and gold stands in the shop.", "horse", 0, "depictive"),
    # A thing made to look like the object.
    ("The cupcakes are frosted to look like little teddy bears.", "teddy bears", 0,
     "depictive"),
    ("The play structure is built to look like a train.", "train", 0, "depictive"),
    ("The ceiling has hanging origami animals, including a white horse.", "horse", 0,
     "depictive"),
    ("Two benches nearby give people somewhere to rest while they wait.", "people", 0,
     "purpose"),
    ("The travelers have been waiting a long time for their suitcases.", "suitcases", 0,
     "purpose"),
    # Round 27: what clues are evidence of or consistent with; an inference denied; a habit
    # inferred of a kind.
    ("Paw prints on the hood are consistent with a cat sleeping there.", "cat", 0, "hedged"),
    ("The open gate is evidence that a horse got out of the field.", "horse", 0, "hedged"),
    ("Crumbs cover the plate, a sign that a sandwich was eaten here.", "sandwich", 0, "hedged"),
    ("Nothing on the table suggests that a cake was served.", "cake", 0, "negation"),
    ("There is no evidence that a dog has been in the yard.", "dog", 0, "negation"),
    ("The clean bowl does not suggest that a cat lives here.", "cat", 0, "negation"),
    ("There is nothing to indicate that a boat has used this dock.", "boat", 0, "negation"),
    ("The worn path suggests that cyclists often ride through the park.", "cyclists", 0,
     "generic"),
    ("The tracks indicate that trucks regularly come down this road.", "trucks", 0, "generic"),
    ("The leash suggests that a dog usually sleeps here.", "dog", 0, "hedged"),
    # Round 27: a decoy, an embroidered vehicle, a likeness the parser split from its "shaped
    # like", one of the pictures just named; guests expected; "neither ... nor ... any".
    ("A plastic decoy duck bobs on the pond.", "duck", 0, "depictive"),
    ("Her jacket has an embroidered motorcycle on the back.", "motorcycle", 0, "depictive"),
    ("A cookie jar shaped like a giant donut sits on the counter.", "donut", 0, "depictive"),
    ("The lid is covered in stickers, including one of a red apple.", "apple", 0,
     "depictive"),
    ("The wall has several posters, one of a horse.", "horse", 0, "depictive"),
    ("The organisers expect many people to stop by for coffee.", "people", 0, "purpose"),
    ("Two chairs are set at the table, so two people are expected for lunch.", "people", 0,
     "purpose"),
    ("Neither the man nor the woman is holding an umbrella.", "umbrella", 0, "negation"),
    # Round 27: a purpose guessed at; a habit or a kind inside a guess or a purpose.
    ("Netting is stretched over the patio, apparently to keep seagulls away from the plates.",
     "seagulls", 0, "purpose"),
    ("A cone stands by the door, possibly to mark a spill or to signal to people the danger.",
     "people", 0, "purpose"),
    ("The park looks like a place where kids often ride bikes.", "bikes", 0, "generic"),
    ("Harbors like this are notorious for seagulls stealing fries.", "seagulls", 0, "generic"),
    # Round 27: a picture whose verb of showing is hedged, in a relative clause after the place
    # or with the picture put up somewhere; a thing held by a statue whose "holding" the parser
    # hung elsewhere; a graphic, a screensaver.
    ("A poster hangs on the door that seems to show a giraffe.", "giraffe", 0, "depictive"),
    ("A faded photo taped to the fridge appears to show a sheep.", "sheep", 0, "depictive"),
    ("A bronze statue of a boy stands by the gate holding a kite.", "kite", 0, "depictive"),
    ("She wears a hoodie with a big skateboard graphic on the back.", "skateboard", 0,
     "depictive"),
    ("The laptop is showing a screensaver of a zebra.", "zebra", 0, "depictive"),
    # Round 27: what a made likeness looks like.
    ("A plush toy that looks like a giraffe sits on the bed.", "giraffe", 0, "depictive"),
    ("The figurine on the desk looks like a cat.", "cat", 0, "depictive"),
    # Round 27: a hedged "there is" that a later "the boats" does not take back; a free
    # relative in a list; a re-description of a thing itself only guessed at.
    ("Boats are tied to the dock. Further out, there might be a kayak near the rocks. The "
     "boats are white.", "kayak", 0, "hedged"),
    ("There is a glass case filled with pastries, including several donuts and what appears to "
     "be a slice of chocolate cake.", "cake", 0, "hedged"),
    ("The crates appear to contain fresh fruit, possibly apples.", "apples", 0, "hedged"),
    # Round 28: the hedge still reaches a participle with its own hedge, the hedged verb's own
    # object before an "as" clause, and what an "as if" clause imagines.
    ("The woman appears to be resting, possibly holding a phone.", "phone", 0, "hedged"),
    ("The man appears to be carrying a surfboard as he walks toward the water.", "surfboard", 0,
     "hedged"),
    ("The dog appears to be sniffing the grass as if it smells a cat.", "cat", 0, "hedged"),
    # Round 28: a hedged count of one is a guess at presence (against none); a blur, a glow or
    # a sliver is what is seen, too vague to anchor the guess.
    ("The beach is nearly deserted, with maybe one person walking along the water.", "person",
     0, "hedged"),
    ("A white blur near the fence might be a dog running.", "dog", 0, "hedged"),
    ("A soft glow in the window could be a television left on.", "television", 0, "hedged"),
    ("A thin dark sliver on the horizon, possibly a boat, breaks the line of the sea.", "boat",
     0, "hedged"),
    # Round 28: grounding markup (Qwen-VL's <ref>/<box>, Kosmos-2's <phrase>/<object> tags,
    # Shikra's coordinates) is not part of the sentence the parser reads.
    ("<ref>A flat-screen TV</ref><box>(120,80),(640,400)</box> on the wall shows a horse "
     "galloping across a field.", "horse", 0, "depictive"),
    ("<grounding><phrase>A poster</phrase><object><patch_index_0012><patch_index_0301></object>"
     " above the desk shows a cat wearing sunglasses.", "cat", 0, "depictive"),
    ("A woman [0.10,0.20,0.45,0.95] sits on a bench [0.40,0.60,0.90,0.90], possibly waiting "
     "for a bus.", "bus", 0, "purpose"),
    # A numbered label opening a line ("Step 3:", "Object 2:") is not the sentence's subject.
    ("Object 3: the screen behind the counter displays a pizza with extra cheese.", "pizza", 0,
     "depictive"),
    # Round 28: a part of a picture as a fronted place; what a shown figure does something
    # with; a slideshow.
    ("In the upper corner of the poster, a cat sleeps on a windowsill.", "cat", 0, "depictive"),
    ("A girl in the mural is flying a kite.", "kite", 0, "depictive"),
    ("The presenter on screen is holding a bottle of juice.", "bottle", 0, "depictive"),
    ("The monitor in the café is running a slideshow of sandwiches from the lunch menu.",
     "sandwiches", 0, "depictive"),
    # A list's last item with its own hedge on "a few" (parsed as an adjective).
    ("The counter holds loaves of bread, bagels, and perhaps a few donuts.", "donuts", 0,
     "hedged"),
    ("Kids are waiting to ride a bus.", "bus", 0, "purpose"),
    # What a barrier keeps out is what it is for.
    ("The netting over the pond keeps birds away from the fish.", "birds", 0, "purpose"),
    ("A fence prevents cows from wandering onto the road.", "cows", 0, "purpose"),
    ("A tall gate keeps dogs out of the garden.", "dogs", 0, "purpose"),
    # A list's next item with its own hedge, which the parser hung on the head noun; "so" after
    # a noun, without a comma, opens a purpose.
    ("A writing desk with a monitor and likely a keyboard buried under papers", "keyboard", 0,
     "hedged"),
    ("A cushion on the window seat so a child can look outside", "child", 0, "purpose"),
    # What a place is known for is a kind.
    ("A seaside town famous for its seagulls", "seagulls", 0, "generic"),
    ("An orchard known for apples", "apples", 0, "generic"),
    # A picture that "there is" puts in the scene, wherever the parser hung its place.
    ("There is a photo of a dog, and the real dog sleeps beneath it.", "dog", 0, "depictive"),
    # The object inside "it is possible that ...", as inside "it seems that ..."; a hedge that
    # opens a list of a set's items reaches each of them.
    ("It is possible that the woman is carrying an umbrella.", "umbrella", 0, "hedged"),
    ("The drawer holds a few things, perhaps a knife, a fork and a spoon.", "fork", 0,
     "hedged"),
    # Round 29: Markdown of chat models' answers (emphasis, headings, bullets) is not part of
    # the sentence the parser reads.
    ("- **Background:** *possibly* a **cat** asleep on the windowsill", "cat", 0, "hedged"),
    ("### In the background\n- *possibly* a **cat** asleep on the windowsill", "cat", 0,
     "hedged"),
    ("**Street:** quiet, with __no__ **cars** parked along the curb.", "cars", 0, "negation"),
    ("1. **Shelf:** a bowl of fruit\n2. **Notes:** the sort of kitchen where *kids* do their "
     "homework", "kids", 0, "generic"),
    # "<medium>: <content>" in terse and list-style captions, as "the logo is a kite" says it.
    ("Mural on the garage door: a girl flying a kite.", "girl", 0, "depictive"),
    ("Mural on the garage door: a girl flying a kite.", "kite", 0, "depictive"),
    ("- **Screen:** close-up of a pizza coming out of an oven", "pizza", 0, "depictive"),
    ("Small bronze statue: boy holding an umbrella.", "umbrella", 0, "depictive"),
    # ... and a participle said of the label; "advertising" read as part of a compound.
    ("- **Poster:** taped to the fridge, showing a cat in a hat", "cat", 0, "depictive"),
    ("A banner advertising motorcycles hangs over the shop door.", "motorcycles", 0,
     "depictive"),
    # The medium's participle read as the subject, or as the verb with "shows" hung on it.
    ("The flag hanging from the porch shows a black horse on a green background.", "horse", 0,
     "depictive"),
    ("The boy's painting taped to the door shows a house, a tree and a small dog.", "dog", 0,
     "depictive"),
    # A video model's clip is the captioned thing; a numbered image is one of the captioned set.
    ("The clip shows a woman carrying a cake for her kid.", "kid", 0, "purpose"),
    ("Image 1 shows a desk with a laptop, while image 2 shows the desk with no laptop.",
     "laptop", 1, "negation"),
    # A medium right before a participle of showing that the parser hung on the verb.
    ("The video pauses on an old tapestry depicting a knight and two horses.", "horses", 0,
     "depictive"),
    # Sugar pastes model things; a snow globe's inside is a made scene; a magazine's cover.
    ("The cupcakes are topped with fondant tennis balls.", "tennis balls", 0, "depictive"),
    ("A snow globe on the shelf holds a tiny red bus.", "bus", 0, "depictive"),
    ("Inside the snow globe there is a little wooden bench.", "bench", 0, "depictive"),
    ("On the cover of the book there is a dog wearing a scarf.", "dog", 0, "depictive"),
    # A guess with its own place is not a type of an anchor of no object category; a
    # rectangle is as vague as a shape; more of them are others.
    ("A wooden birdhouse on a pole, maybe a bird in the opening.", "bird", 0, "hedged"),
    ("A dark rectangle on the wall, possibly a TV.", "TV", 0, "hedged"),
    ("Three sheep graze by the fence; possibly more sheep behind the barn.", "sheep", 1,
     "hedged"),
    ("A lump under the blanket that might be a cat.", "cat", 0, "hedged"),
    # A raising verb between the place and "popular with".
    ("A boardwalk that seems popular with cyclists in the morning.", "cyclists", 0, "generic"),
    # A that-clause of a negated "confirm" or "sure" is left open.
    ("I can't confirm that there is a cat under the bed.", "cat", 0, "hedged"),
    ("I am not certain that a dog is in the yard.", "dog", 0, "hedged"),
    # An aside after a chain of places guesses at what they locate.
    ("Something white lies in the grass near the fence, possibly a frisbee.", "frisbee", 0,
     "hedged"),
    # A hung picture said to be a photo; a print all over a thing; a stained-glass window.
    ("The picture hanging by the door is an old photo of a ship.", "ship", 0,
     "depictive"),
    ("Her pillowcase has tiny cats printed all over it.", "cats", 0, "depictive"),
    ("The stained-glass window shows a horse and a rider.", "horse", 0, "depictive"),
    # "Neither of them" has none; a fronted "at no point" denies the clause.
    ("Neither of the two photos contains a bicycle.", "bicycle", 0, "negation"),
    ("At no point in the video does a bus pull up to the shelter.", "bus", 0, "negation"),
    # A made thing that depicts; part of a broadcast; a painted figure said to be something;
    # a screen "where" a thing moves.
    ("A wooden puzzle depicting a giraffe lies on the rug.", "giraffe", 0, "depictive"),
    ("The football you see is part of the broadcast on the TV.", "football", 0, "depictive"),
    ("The mascot painted on the van is a dog in sunglasses.", "dog", 0, "depictive"),
    ("A boy taps the tablet screen, where a cat is chasing a mouse.", "cat", 0, "depictive"),
    # A list item under a hedged label; "one" of the pictures a label names.
    ("- **Possible items:** a remote on the armrest, half under a cushion", "remote", 0,
     "hedged"),
    ("- **Framed photos:** one shows a girl on a horse", "girl", 0, "depictive"),
    # "is there to" gives a purpose.
    ("The hook by the door is there to hold umbrellas.", "umbrellas", 0, "purpose"),
    # What is made out of a material said of its maker; what is drawn.
    ("A sculptor carves a horse out of a block of ice.", "horse", 0, "depictive"),
    ("A boy is building a bus out of toy bricks.", "bus", 0, "depictive"),
    ("The girl sketches a horse in her notebook.", "horse", 0, "depictive"),
    # Round 30: the pivot of "there seems to be" when the parser makes its participle the
    # predicate; motion or a flash is no object a hedge can re-describe; a report's label
    # before the sentence's subject.
    ("There seems to be a bear moving slowly.", "bear", 0, "hedged"),
    ("Motion near the dumpster, possibly a cat.", "cat", 0, "hedged"),
    ("Camera 9, 23:48: a shadow near the gate may be a person crouching.", "person", 0,
     "hedged"),
    # What someone is sent or heading off to fetch, or asked to find, is not there yet.
    ("The robot is heading to the stockroom to fetch a toaster.", "toaster", 0, "purpose"),
    ("The robot was sent to fetch a tennis racket from the garage.", "tennis racket", 0,
     "purpose"),
    ("The user asked the assistant to find an empty bench.", "bench", 0, "purpose"),
    # Drawing media and glitter or enamel likenesses; a one-word medium label the tagger
    # mistook; an advertising or digital panel shows what it shows.
    ("My son's sidewalk masterpiece: a chalk giraffe taller than he is.", "giraffe", 0,
     "depictive"),
    ("A whole alley covered in graffiti parrots.", "parrots", 0, "depictive"),
    ("Kids' placemat with a watercolor boat on a calm lake.", "boat", 0, "depictive"),
    ("A silver bracelet with a tiny enamel kitty and a heart.", "kitty", 0, "depictive"),
    ("Tattoo: a minimalist bicycle.", "bicycle", 0, "depictive"),
    ("The shelter has an advertising panel showing a surfboard on a beach.", "surfboard", 0,
     "depictive"),
    # Learners' English: "no any", "is shape like".
    ("No any person in the picture, only snow and tree.", "person", 0, "negation"),
    ("The sky is clear, no any airplane or bird flying.", "bird", 0, "negation"),
    ("The lamp is shape like a horse.", "horse", 0, "depictive"),
    # Not yet appeared; the room a thing has ("seats four", "holds up to twelve").
    ("The feeding bowl is full and the cat has not appeared since morning.", "cat", 0,
     "negation"),
    ("Wall-mounted bike rack fits two bicycles.", "bicycles", 0, "purpose"),
    ("Round pedestal table seats four people comfortably.", "people", 0, "purpose"),
    ("Wine rack holds up to twelve bottles.", "bottles", 0, "purpose"),
    ("A sticker on the laptop lid shows a small cat, possibly the logo of a company.", "cat", 0,
     "depictive"),
    # Certainty stopped short; an agent's task; a counterfactual wish.
    ("I'm pretty sure there's a laptop buried behind that stack of books.", "laptop", 0,
     "hedged"),
    ("I'm fairly sure that dot on the rooftop is a pigeon.", "pigeon", 0, "hedged"),
    ("Next task: bring a clean fork to Table 4.", "fork", 0, "purpose"),
    ("Really wishing I had my bike for this trail.", "bike", 0, "purpose"),
    # What a print-bearing thing "has on it"; a set of pictures; a participle the parser gave
    # the mention as its subject; a mention before its medium, parsed as its subject; learners'
    # "for" + verb.
    ("The T-shirt has a lamb on it.", "lamb", 0, "depictive"),
    ("Nursery wall decal set of safari animals, including a tall giraffe.", "giraffe", 0,
     "depictive"),
    ("A sticker set of two cats.", "cats", 0, "depictive"),
    ("The delivery van outside has a giant donut painted on its side.", "donut", 0,
     "depictive"),
    ("Giant metal scissors sculpture outside the fabric store.", "scissors", 0, "depictive"),
    ("Big basket is for carry apples from the farm.", "apples", 0, "purpose"),
    # Emoji are not words: the tagger read "luggage 😩" and "duck 🦆" as compounds.
    ("Still at baggage claim waiting for my luggage 😩✈️ #travelproblems", "luggage", 0,
     "purpose"),
    ("Something's rustling in the reeds, possibly a duck 🦆👀", "duck", 0, "hedged"),
    # Round 31: what the copula puts on a screen or in a painting; "part of" a picture; a
    # pattern or an emblem is a likeness; a named person's photograph is a thing in the scene;
    # a stamp shows.
    ("The black dog is on the TV screen.", "dog", 0, "depictive"),
    ("The horse above the sofa is in a framed oil painting.", "horse", 0, "depictive"),
    ("The vase on the tablecloth is part of the embroidery pattern.", "vase", 0, "depictive"),
    ("The sparrow on the teacup is a painted pattern.", "sparrow", 0, "depictive"),
    ("The eagle on the flag is an emblem stitched in gold thread.", "eagle", 0, "depictive"),
    ("Grandpa's faded photograph on the table shows a young man beside his tractor.", "man", 0,
     "depictive"),
    ("The stamp on the old letter shows a soaring eagle.", "eagle", 0, "depictive"),
    # Advice: a thing that would help; the reader's errand; where such things belong; a habit
    # with "ordinarily".
    ("A small vase would make these tulips look tidier on the table.", "vase", 0, "purpose"),
    ("A leash and a frisbee would keep the dog busy at the campsite.", "frisbee", 0,
     "purpose"),
    ("Bring a reusable bottle that you can refill at the spring.", "bottle", 0, "purpose"),
    ("This is strange because toasters belong in kitchens.", "toasters", 0, "generic"),
    ("Ordinarily a microwave would sit on a kitchen counter.", "microwave", 0, "generic"),
    # A place before the guess locates the guess itself; a bundle is as vague as a shape.
    ("Somewhere behind the red barn door, perhaps a horse is munching hay.", "horse", 0,
     "hedged"),
    ("The bundle under the stairwell might be a backpack left by a visitor.", "backpack", 0,
     "hedged"),
    # A verdict list's "no" and "not found".
    ("Verification summary: person, yes; skis, yes; snowboard, no.", "snowboard", 0,
     "negation"),
    ("Grounding results: dog, present; person, not found anywhere in the frame.", "person", 0,
     "negation"),
    # Round 32: printmaking, wall paintings and a still life; event boards and crowd pictures;
    # a photo standing on a shelf; "it" after "look at the drawing"; woven, stitched and
    # airbrushed pictures; a book's cover; "arranged to look like".
    ("A Dutch still life above the piano shows a pewter jug and a bowl of apples.", "apples",
     0, "depictive"),
    ("The chapel fresco shows a lamb resting beside a shepherd.", "lamb", 0, "depictive"),
    ("A woodcut in the hallway shows a crow on a bare branch.", "crow", 0, "depictive"),
    ("The outfield scoreboard shows a pixelated baseball bouncing after each strikeout.",
     "baseball", 0, "depictive"),
    ("Fans hold up a placard showing a giant tennis racket.", "tennis racket", 0, "depictive"),
    ("The family photo on the shelf shows a little girl holding a kitten.", "girl", 0,
     "depictive"),
    ("Look at the drawing on the fridge! It shows a purple elephant.", "elephant", 0,
     "depictive"),
    ("Can you spot the sticker on the door? It's a cat with a bow.", "cat", 0, "depictive"),
    ("The rider's helmet is airbrushed with a grinning cat.", "cat", 0, "depictive"),
    ("A rug hanging on the wall is woven with birds and vines.", "birds", 0, "depictive"),
    ("The novel on the nightstand has a red truck on its cover.", "truck", 0, "depictive"),
    ("A pancake with berries arranged to look like a smiling bear.", "bear", 0, "depictive"),
    # "none of" with "remain"; a question answered "No"; a place's noun the parser made the
    # subject of "there may be"; a tuft is no object yet.
    ("None of the sheep remain in the pen.", "sheep", 0, "negation"),
    ("Question 2: Is there a dog in this picture? Answer: No, there isn't.", "dog", 0,
     "negation"),
    ("Behind the timing stand there may also be a small refrigerator.", "refrigerator", 0,
     "hedged"),
    ("A tuft of white in the far field might be a sheep.", "sheep", 0, "hedged"),
    # Any one that may come; put in place for a use; expected to roll in.
    ("A rescue launch waits by the buoy, ready to tow any boat that capsizes.", "boat", 0,
     "purpose"),
    ("Hooks by the door were installed to hold umbrellas on rainy days.", "umbrellas", 0,
     "purpose"),
    ("Mechanics wait by the hangar, expecting the airplane to roll in any minute.", "airplane",
     0, "purpose"),
    # A habit with "routinely"; a time gone by; what a kind can do; a fact told as one.
    ("Pigeons routinely nest under these bridges.", "Pigeons", 0, "generic"),
    ("The old mill recalls a time when horses turned the grindstone.", "horses", 0, "generic"),
    ("Horses can sleep standing up.", "Horses", 0, "generic"),
    ("Did you know? Giraffes are the tallest animals in the world.", "Giraffes", 0, "generic"),
    # Round 33: news passives of report and belief; a vague thing named before the aside, or a
    # group of vague things; "reportedly"; a present perfect that has lasted for generations;
    # rock art, cut-outs, charts that illustrate, a package's label.
    ("A crowd gathers where a motorcycle is believed to be pinned beneath a bus.", "motorcycle",
     0, "hedged"),
    ("Rescuers dig through the rubble, where several people are feared trapped.", "people", 0,
     "hedged"),
    ("A man hurries past with something tucked under his arm, possibly a handbag.", "handbag",
     0, "hedged"),
    ("Two bags lie beside a dark object, perhaps a backpack, on the platform.", "backpack", 0,
     "hedged"),
    ("A cluster of white dots on the far sand may be seagulls.", "seagulls", 0, "hedged"),
    ("Its cargo was reportedly bananas, police said.", "bananas", 0, "hedged"),
    ("Tourists stroll along the canal, where boats have been moored for generations.", "boats",
     0, "generic"),
    ("Petroglyphs on the canyon wall depict bighorn sheep.", "sheep", 0, "depictive"),
    ("A metal cut-out of a grazing cow is mounted on the gatepost.", "cow", 0, "depictive"),
    ("Laminated charts in the hide illustrate every duck species on the lake.", "duck", 0,
     "depictive"),
    ("The carton shows a sliced banana on the label.", "banana", 0, "depictive"),
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
    # Round 2. A reader is no text: "reading a book" holds a book.
    ("A girl sits under a tree, reading a book.", "book", 0),
    # A clause conjoined after a form or a decoration is its own claim.
    ("The cake is shaped like a star, and a dog sits next to it.", "dog", 0),
    ("The wall is decorated with flowers, and the cat is sleeping below it.", "cat", 0),
    # A non-restrictive relative clause says what the (hedged-kind) person does.
    ("A figure stands on the left, possibly a man, who is holding a cell phone.", "cell phone",
     0),
    # A type hedge through a relative pronoun re-describes the asserted thing.
    ("On the shelf sits a stuffed animal, which appears to be a teddy bear.", "teddy bear", 0),
    # "About to" act on something, like "ready to": the thing is there.
    ("A girl is about to cut a cake with a knife.", "cake", 0),
    # What a definite thing of the scene is for, and a purpose clause's definite object's
    # own relative clause.
    ("A knife lies on the plate, likely used for cutting the pizza. The pizza is warm.",
     "pizza", 0),
    ("She uses a pan to cook the meal, which includes broccoli.", "broccoli", 0),
    # A definite conjunct shares its article and refers back.
    ("Cars and trucks fill the road. A man is possibly counting the cars and trucks.", "trucks",
     1),
    # A size is no purpose; a subject placed by its participle is there under a hedged activity.
    ("A table for four with cups and plates.", "cups", 0),
    ("A man standing by the door is probably waiting.", "man", 0),
    # Same-object and part compounds.
    ("A red pickup truck waits at the light.", "pickup", 0),
    ("Two pizza pies sit on the counter.", "pizza", 0),
    ("A cat naps on the laptop keyboard.", "laptop", 0),
    ("A boy does a skateboard trick.", "skateboard", 0),
    ("A few slices of orange lie on the plate.", "orange", 0),
    # The hard negatives of the forms above.
    ("The dog is likely happy.", "dog", 0),
    ("A car painted red is parked on the street.", "car", 0),
    ("The image depicts a vintage photograph of a street lined with old cars.", "cars", 0),
    ("A man is preparing to hit a tennis ball.", "tennis ball", 0),
    ("The chairs appear scattered across the room.", "chairs", 0),
    ("A man appears dressed in a suit.", "man", 0),
    ("The bench is made of wood.", "bench", 0),
    ("The dog is nowhere near the cat.", "dog", 0),
    ("A train passes the crossing, with cars waiting at the gate.", "cars", 0),
    ("A man holds a leash, but the dog is out of frame.", "man", 0),
    ("A man is out of the car.", "man", 0),
    # "On display" is exhibited, not shown on a display; an inference verb does not reach back
    # across a semicolon; a hedge adverb heading a purpose phrase hedges the purpose.
    ("A hangar with several airplanes on display.", "airplanes", 0),
    ("A laptop rests on an open suitcase; this suggests that they were working.", "suitcase",
     0),
    ("A knife can be seen in the background, likely for cutting the cake.", "knife", 0),
    # Round 5 hard negatives: a reader is no text even as "others"; what follows quoted text.
    ("Some people wait while others are reading books.", "books", 0),
    ('A sign says "No Parking," yet several cars are parked under it.', "cars", 0),
    ("A dog sleeps near a TV playing a movie about a horse.", "TV", 0),
    ("A man talks about his dog.", "dog", 0),
    ("The pizza is a popular choice.", "pizza", 0),
    ("A field where cows grazed.", "cows", 0),
    ("He moved the chair so that the man could sit.", "man", 0),
    ("A man is in the picture.", "man", 0),
    ("Nobody is holding the cup.", "cup", 0),
    ("A man sits at a desk. The mess suggests that the person who works here is busy.",
     "person", 0),
    ("A large umbrella provides shade for a woman lying on a towel.", "woman", 0),
    ("People wait for the bus, which can be seen approaching.", "bus", 0),
    ('A sign reads "No Dogs." Despite the sign, a dog runs on the grass.', "dog", 0),
    ("A TV hangs on the wall. A remote lies there, likely left by someone watching TV.", "TV",
     1),
    ("The street is empty except for a woman holding an umbrella.", "umbrella", 0),
    ("There is no doubt a dog in the scene.", "dog", 0),
    ("A person is attending to one of the bicycles or just passing by.", "bicycles", 0),
    ("Cars line the street.", "Cars", 0),
    ("A man stands by the counter. The man may be waiting.", "man", 1),
    ("The photo shows a dog on a couch.", "dog", 0),
    ("This image shows a bookshelf with a variety of books on it.", "books", 0),
    ("A man reads a book with a cat on his lap.", "cat", 0),
    ("The TV is showing a game, with a couch in front of it.", "couch", 0),
    ("A man sat as though he was tired.", "man", 0),
    ("A dog is in the scene.", "dog", 0),
    ("He is taller than the man next to him.", "man", 0),
    ("A dog as well as a cat.", "cat", 0),
    ("A shelf on which a cat is sleeping.", "cat", 0),
    # Round 7's hard negatives: the participle's subject is a person, the place follows the
    # subject, a denial about the view, the eater, a toy's real namesake.
    ("A woman is sitting on the sofa, showing a photo to her son.", "woman", 0),
    ("A boy stands by the table, showing a dog to his friends.", "dog", 0),
    ("A cat is sleeping on the cover of the bed.", "cat", 0),
    ("Two cars are parked on the street, but they are not clearly visible.", "cars", 0),
    ("A dog sits on the porch, but it is not moving.", "dog", 0),
    ("A man has already eaten half of his pizza.", "man", 0),
    ("A man has already eaten half of his pizza.", "pizza", 0),
    ("The bus has just left the stop.", "bus", 0),
    ("A cup of tea that might have gone cold sits there.", "cup", 0),
    ("A child hugs a teddy bear while a bear walks past the window.", "bear", 0),
    ("Several drawings hang on the fridge next to a man; he shows them to a woman.", "woman", 0),
    ("There is a sandwich, probably turkey, as well as a bottle of water.", "bottle", 0),
    ("A knife, likely used to slice the bread, a jar of jam, and a cup sit on the board.",
     "cup", 0),
    ("A man stands on the dock, seemingly fixing a rope, while a bird rests on a post.", "bird",
     0),
    ("A dog usually sleeps on the couch when a man is cooking.", "man", 0),
    ("In this photo, there is a picture of a cat.", "cat", 0),
    ("A chair stands under the poster, where a man sits reading a book.", "man", 0),
    ("On the table, a woman is cutting a cake.", "cake", 0),
    ("A TV in the corner is showing the game the boy is playing.", "boy", 0),
    ("One bicycle is missing its front wheel.", "bicycle", 0),
    ("A slice of the cake is missing.", "cake", 0),
    ("The fridge appears to be mostly empty, with only a few bottles on the top shelf.",
     "bottles", 0),
    ("A man, neither young nor old, holds a cup.", "cup", 0),
    ("a man and a woman, probably tourists, feeding a giraffe", "woman", 0),
    ("A cat is asleep on a plush red couch.", "couch", 0),
    ("The bus does not appear to be moving.", "bus", 0),
    # The captioned image is no thing in the scene; a surface is the picture's place.
    ("A photo of a dog sitting on a couch.", "dog", 0),
    ("A photograph of a woman resting on a bench.", "woman", 0),
    ("This image shows two sandwiches on a cutting board.", "sandwiches", 0),
    ("The picture of a horse is in black and white.", "horse", 0),
    ("There is a photo of a dog on the refrigerator.", "refrigerator", 0),
    ("A dog sits next to the statue, and it is holding a frisbee.", "frisbee", 0),
    ("A man is watching trains pass by.", "trains", 0),
    # A scene detail after a hedged clause; a hedged aside re-describing an object of the same
    # kind; verbs read as compound heads; what has not gone yet; a part of a set missing;
    # perception is no habit; a list going on after quoted text; the captioned image; people
    # and things a participle places.
    ("A man sits at a desk, likely working on a project, with a cup of coffee beside him.",
     "cup", 0),
    ("Several cars and a bus, possibly a school bus, wait at the light.", "bus", 1),
    ("A cow, likely a dairy cow, stands in the field.", "cow", 1),
    ("The plate holds a sandwich cut in half.", "sandwich", 0),
    ("A fork and knife rest beside the plate.", "knife", 0),
    ("The gate stays down until the train has gone by.", "train", 0),
    ("A few of the donuts appear to be missing.", "donuts", 0),
    ("In the park there is a path, where a couple of people can be seen jogging.", "people", 0),
    ('A small sign reads "No Trucks" and a few cars are parked along the curb.', "cars", 0),
    ("The image is a photograph of a pizza on a wooden board.", "pizza", 0),
    ("He is laughing, possibly at a joke told by the woman sitting across from him.", "woman",
     0),
    ("A man is reaching for bananas hanging from the ceiling.", "bananas", 0),
    ("He is playing with a baseball.", "baseball", 0),
    # A list that goes on past a purpose phrase on its first item.
    ("The bathroom contains a towel rack for hanging towels, a bottle, and a remote control.",
     "remote control", 0),
    # An inference about "people" after the caption showed a group of people is about them.
    ("Several people walk in the background. Some cars are parked on the sand, indicating "
     "that people have come to this beach for the day.", "people", 1),
    ("A man in a coat walks by without an umbrella, next to a bicycle.", "bicycle", 0),
    ("The park is open to the people who live nearby.", "people", 0),
    ("A teddy bear sits on the bed next to a real bear cub.", "teddy bear", 0),
    # Round 13: an orange slice is the fruit; a toaster oven and a microwave oven are ovens
    # the tagger reads as verbs; a carriage pulled by horses and the people beside it are no
    # drawing; a train carrying paint is no painting; the object under another name.
    ("A small bird sits on an orange slice.", "orange", 0),
    ("A silver toaster oven sits on the counter.", "oven", 0),
    ("Several horse-drawn carriages and people fill the square.", "people", 0),
    ("A freight train with graffiti painted on its side waits at the station.", "train", 0),
    ("A colorful bird species perches on the branch.", "bird", 0),
    ("He relaxes on the sofa with his two feline companions.", "feline", 0),
    ("They fill the toilet bowls with water.", "toilet", 0),
    # Round 14: a place adorned with things holds real things (not "a cake decorated with a
    # dog"); a man selling from a cart is no shop.
    ("The harbor is adorned with a few small boats.", "boats", 0),
    ("A man sells hot dogs from his cart.", "hot dogs", 0),
    # Several people standing where they are; two men watching a match; a cup or mug.
    ("A platform where several people stand holding their bags.", "people", 0),
    ("Two men watch a soccer match with a dog beside them.", "dog", 0),
    ("He holds a cup or mug in his hand.", "cup", 0),
    ("A woman, possibly a tourist or a student, stands by the fountain.", "woman", 0),
    ("A man crossed out a word on the sign next to his bicycle.", "bicycle", 0),
    # A body part's owner is there.
    ("A man cuts a child's hair in a salon.", "child", 0),
    ("The image shows a close-up of a person's hand holding an apple.", "person", 0),
    ("A bronze statue stands in the square. The fountain, horses and benches make a pleasant "
     "scene.", "horses", 0),
    # Round 15: a painted coat on a thing; people called figures; verbs of motion the tagger
    # reads as a compound's head; the same captions without their articles (a participle's
    # clause, an instance in a where-clause, an orange with its size).
    ("A pug naps under a green-painted wooden bench.", "bench", 0),
    ("Two figures, a man and a woman, stroll along the shore.", "man", 0),
    ("A gray horse trots along the fence.", "horse", 0),
    ("A small dog peeks out from behind the couch.", "dog", 0),
    ("A red train speeds past the crossing.", "train", 0),
    ("cat sits beside open laptop displaying website", "laptop", 0),
    ("small square where bench is visible beside fountain", "bench", 0),
    ("kitchen counter with mug, knife and small orange", "orange", 0),
    ("image is grainy, dark photograph showing cat asleep on sofa", "cat", 0),
    ("A puppy naps on a skateboard indoors.", "skateboard", 0),
    ("Objects in the kitchen:\n- a poster of a cat\n- a bowl on the floor", "bowl", 0),
    ("A motorcycle racer leans into the curve.", "motorcycle", 0),
    # Round 16: hard negatives of the count apposition and the shaped cake; the caption's own
    # image under a heading; a list item's first word after its marker is no brand name; a
    # curly apostrophe; article-less captions: a noun said again is the one asserted, "one of
    # people" a presupposed set, "next to bowl" no infinitive, bare "orange" the fruit.
    ("shelf holds three carved animal figures, brown bear and horse", "horse", 0),
    ("**Description:** an image of a man putting a tray in the oven", "man", 0),
    ("Caption: a photo of a dog sleeping on a couch", "dog", 0),
    ("- Bananas hang from the stand.\n- Apples fill a crate below.", "Apples", 0),
    ("The scene captures the energy of a lively children’s soccer game.", "children", 0),
    ("The viewer can focus on the old bus’s unique characteristics.", "bus", 0),
    ("cat lies on wooden chair, and cat appears to be enjoying warmth of chair", "chair", 1),
    ("several people sit on grass, and bicycle is parked nearby, likely belonging to one of "
     "people", "people", 1),
    ("spoon is placed next to bowl on table", "bowl", 0),
    ("knife lies beside two halves of orange on cutting board", "orange", 0),
    ("This photograph shows a tennis match in progress, with a man jumping to hit the ball.",
     "man", 0),
    ("This is a photo of a cow hanging from the ceiling in a store.", "cow", 0),
    # Round 17's hard negatives: an existential "there" without a hedge; the participle of
    # another clause after a semicolon; a definite subject with a place adverb; a plate "with a
    # pizza on it".
    ("There are some people swimming in the lake.", "people", 0),
    ("Two chairs can be seen behind the desk; there might have been more chairs.", "chairs", 0),
    ("The dog is probably nearby.", "dog", 0),
    ("A man holds a plate with a pizza on it.", "pizza", 0),
    ("The image shows a wooden table with two bananas on it.", "bananas", 0),
    ("photo shows inside of busy train or subway car at night", "train", 0),  # one compound
    # Round 18's hard negatives: a negation that only limits a quantity; "the people" after one
    # man are more than him, but "the man" again is the same man; goods for sale are there; a
    # dog missing a frisbee fails to catch it; an embroidered tie is a tie; the sign's text
    # ends before "with".
    ("There are not many cars on the street.", "cars", 0),
    ("There are no more than two people.", "people", 0),
    ("A man stands in the field. He is waving at the man's friend, and the people nearby "
     "watch.", "people", 0),
    ("The shelf is filled with items for sale, such as vases and clocks.", "vases", 0),
    ("The dog is missing the frisbee.", "frisbee", 0),
    ("He wears an embroidered tie.", "tie", 0),
    ("The sign reads 'Stop', with a car parked next to it.", "car", 0),
    ("The man waits by the door. He does not have the cup or a bottle.", "cup", 0),
    ("A train approaches the crossing. A truck has stopped, waiting for the train to pass.",
     "train", 1),
    ("A bag, probably belonging to the man who left his bike here.", "bike", 0),
    # A hedge's evidence is asserted.
    ("This is probably a hotel room, given the bed and the tv.", "tv", 0),
    ("It is probably a kitchen, as evidenced by the oven.", "oven", 0),
    ("Like many people in the park, the man is jogging.", "people", 0),  # those there
    ("The main subject is a picture of a cat.", "cat", 0),  # the captioned image
    ("A man is trying to guide a horse across the river.", "horse", 0),  # acting on it
    # Two kinds of person are still a person.
    ("There is a woman or a girl holding an umbrella.", "woman", 0),
    ("The farm is known for herding the sheep on its hills.", "sheep", 0),
    ("The photo seems to be taken inside a bus.", "bus", 0),  # the kind of scene
    ("The woman tries to catch a frisbee.", "frisbee", 0),  # it is in the air
    ("He is trying to find his phone.", "phone", 0),
    ("The figure of a man appears in the doorway.", "man", 0),  # the man himself
    # A hedge's reason, and a detail after an inference, are asserted.
    ("The man might be a chef, as he is standing near an oven.", "oven", 0),
    ("The scene could be at a station, as there are benches and a clock.", "clock", 0),
    ("The scene suggests a birthday party, with a cake on the table.", "cake", 0),
    ("The child is possibly the man's son, holding a kite.", "kite", 0),
    ("The bus did not arrive on time, but it is at the stop now.", "bus", 0),
    ("A cat sits outside the window.", "cat", 0),
    ("The side of the bus displays a smiling cat.", "bus", 0),  # a verb, not "bus displays"
    ("Light falls on the book covers.", "book", 0),  # a book's cover is part of it
    # A guess at the kind of an asserted thing of the same category.
    ("There are two birds, likely ducks, on the pond.", "ducks", 0),
    ("As for the dog, it is sleeping on the couch.", "dog", 0),
    ("A sugar bowl sits on the table.", "bowl", 0),  # sugar makes likenesses of animates only
    ("A chair shaped like an animal, in this case represented by two horses.", "chair", 0),
    # Plural kinds with a slash are both there; one category named twice is there.
    ("Cups/mugs are scattered on the counter.", "Cups", 0),
    ("A cup/mug sits on the table.", "cup", 0),
    # The room's list goes on after the relative clause, or after what a listed screen shows.
    ("The image shows a living room with a television displaying people, a wooden chair, and "
     "a laptop on the table.", "chair", 0),
    ("The room is decorated with a painting, which depicts a horse, and a vase with flowers.",
     "vase", 0),
    # A later sentence about the thing asserts it.
    ("A man appears to be watching television. The television's screen is bright.",
     "television", 1),
    # Round 20's hard negatives: capacity, a motion's "free from", the definite or the
    # counted after "kind of", an acting subject keeping things away, a habit without a
    # purpose clause, a real vehicle made of wood, people listed, the brand.
    ("The bus can carry many people.", "bus", 0),
    ("The dog broke free from a man.", "man", 0),
    ("The dog broke free of a man.", "man", 0),
    ("It is the kind of park that the people here love.", "people", 0),
    ("A man waves his arms to keep birds away.", "birds", 0),
    ("A man is standing here to watch a bus.", "bus", 0),
    ("The people appear gathered around a fire pit.", "people", 0),
    ("A boat made of wood is on the lake.", "boat", 0),
    ("Several people are in the park, including a man.", "man", 0),
    ("The bus did not pull into the lane.", "bus", 0),
    # Kinds of the things there; where a picture hangs; "real"; a sign of life; a magnet
    # holding a note; what one reaches for; whoever a purpose names, placed by a relative
    # clause, and their things.
    ("A box holds several kinds of donuts.", "donuts", 0),
    ("Two types of cars are parked outside.", "cars", 0),
    ("There is a framed photo of a dog hanging above the sink.", "sink", 0),
    ("A painting of a horse hanging on the wall next to a clock.", "clock", 0),
    ("A statue of a woman sits on a real bench.", "bench", 0),
    ("The only sign of life is a cat on the porch.", "cat", 0),
    ("A magnet shaped like a banana holds a note on the refrigerator.", "refrigerator", 0),
    ("A boy is reaching for a cup on the table.", "cup", 0),
    ("The tree provides shade for a man who is sitting on a bench and reading a book.", "book",
     0),
    ("There is a charger for the laptop that is sitting on the desk.", "laptop", 0),
    # A hedged activity's object placed by a relative clause; a purpose guessed in a reduced
    # relative; a part something misses; a list item hung on a relative clause's adjective; a
    # word on a sign is no picture to point back to.
    ("A girl is seemingly chasing a frisbee that is in the air.", "frisbee", 0),
    ("There are plates, a knife likely intended for cutting the bread, and napkins.", "knife",
     0),
    ("One car in the lot seems to be missing its front bumper.", "car", 0),
    ("The room has a lamp that seems to be quite old and a couch.", "couch", 0),
    ('A sign says "Beware of Dog", which suits the dog sleeping by the gate.', "dog", 1),
    # A possessive re-description; a relative clause after a hedged aside, hung on a noun
    # inside it; a thing placed "nearby"; an aside on what a place phrase locates.
    ("A large elephant stands in the mud, with a small elephant, probably its calf, next to "
     "it.", "calf", 0),
    ("The family includes a boy, possibly the oldest of the children, who is flying a kite.",
     "kite", 0),
    ("A knife is used for slicing the apples placed nearby.", "apples", 0),
    ("A truck can be seen far down the road, possibly a delivery truck.", "truck", 1),
    ("The sign says 'Keep Out' and a dog sits by it.", "dog", 0),
    ("The dogs' bowls are red.", "dogs", 0),
    ("It is clear that there is a dog in the yard.", "dog", 0),
    # Whom a purpose names, placed by a participle the tagger took for a past tense, through
    # the apposition too.
    ("An old man is throwing breadcrumbs for a group of birds, possibly pigeons, gathered near "
     "the bench.", "birds", 0),
    ("An old man is throwing breadcrumbs for a group of birds, possibly pigeons, gathered near "
     "the bench.", "pigeons", 0),
    ("A man leaves food for a group of birds gathered at his feet.", "birds", 0),
    # Round 21: a definite person placed by a participle stays there under a hedged activity;
    # a mere clause of time keeps no hedge from its subject; a box can hold a real cat.
    ("The old man sitting by the window is probably reading the paper.", "man", 0),
    ("The street is quiet, when a dog may walk by.", "dog", 0),
    ("A box with a cat on it sits in the hall.", "cat", 0),
    # Whoever a purpose names, placed by a participle.
    ("The soup is ready to be eaten by the boy sitting at the table.", "boy", 0),
    # A verb the tagger made a compound's head; the room's next item after where a picture
    # hangs; "not only".
    ("A fork and a knife lie beside the plate, and a spoon rests in the bowl.", "spoon", 0),
    ("A train devoid of passengers waits at the platform.", "train", 0),
    ("The study has a painting of a boat on the wall and a large clock on the desk.", "clock",
     0),
    ("There is not only a dog on the porch but also a cat.", "dog", 0),
    # A participle the tagger read as a compound's head after "a"; a room painted a colour,
    # with a bed; a relative clause after a sign's words.
    ("Beside the bed there is a cell phone charging, probably left by the guest.", "cell phone",
     0),
    ("A nursery painted in pale yellow with a small bed under the window.", "bed", 0),
    ("A sign says no dogs allowed on the beach, which the dog seems to ignore.", "dog", 0),
    # Round 22: a verb the tagger read as a plural head after a singular article; "playing"
    # on a worn shirt; a landmark after a purpose's object; "not far from"; a definite subject
    # of "seems to stand".
    ("A small dog naps beside the couch.", "dog", 0),
    ("A teenager in a gray shirt playing frisbee on the beach.", "frisbee", 0),
    ("Two girls waiting for a ride next to a bicycle.", "bicycle", 0),
    ("The vase stands not far from a chair.", "chair", 0),
    ("The vase seems to stand in the far corner.", "vase", 0),
    ("A woman gives a boy a kite to fly.", "boy", 0),
    ("Two hikers carry backpacks or suitcases up the trail.", "suitcases", 0),
    # "appear" as coming into view; the exception after "no ... but"; an aside on what is
    # beside a picture; "where" after a sign that ends a list of the place's things.
    ("Fog covers the valley, and two cows appear in the picture.", "cows", 0),
    ("There are no trucks but several bicycles.", "bicycles", 0),
    ("A framed print in the hallway, with a small vase of flowers beneath it.", "vase", 0),
    ("A lake with a dock, a boathouse and a sign, where two people are fishing.", "people", 0),
    # Round 23: a plain "or" lists both; the owner of a liked thing; reach of someone named.
    ("A boy runs toward the lake holding skis or a snowboard.", "snowboard", 0),
    ("A girl who adores her horse stands by the fence with a camera.", "horse", 0),
    ("Snacks are laid out on the coffee table, within reach of a boy on the sofa.", "boy", 0),
    ("The square is quiet, with no pigeons and two parked bicycles by the fountain.",
     "bicycles", 0),
    ("There are no pigeons but parked bicycles line the square.", "bicycles", 0),
    ("The men's jackets hang on the hooks behind them.", "men", 0),
    ("In this image is a photo of a giraffe eating leaves.", "giraffe", 0),
    ("A cart drawn by a horse rolls down the lane.", "horse", 0),
    ("A bus made of steel and glass waits at the stop.", "bus", 0),
    ("Out on the lake there is a small vessel that might be a fishing boat.", "boat", 0),
    ("A teacher is helping a child tie her shoes.", "child", 0),
    ("The open window lets the cat watch the birds.", "cat", 0),
    ("A dark shape at the end of the pier is a moored boat.", "boat", 0),
    ("None of the boats are moving.", "boats", 0),
    ("A small TV on which a cat is sleeping sits in the corner.", "cat", 0),
    # Round 24: real boats, donuts and models; a coat of paint; "by" as a place; a screen used.
    ("A wooden boat is tied to the dock.", "boat", 0),
    ("A chocolate donut sits on a plate.", "donut", 0),
    ("The car is a classic model.", "car", 0),
    ("The horse is not a statue.", "horse", 0),
    ("A man is painting a boat on the beach.", "boat", 0),
    ("A dog is standing by a car.", "car", 0),
    ("A woman taps on the screen of her phone.", "woman", 0),
    ("A cat is lying on the screen.", "cat", 0),
    ("Several plastic chairs stand around a table.", "chairs", 0),
    ("She has a backpack slung over her shoulder.", "backpack", 0),
    ("A camera is aimed at the dog.", "dog", 0),
    ("Parks like this are lovely, and a dog runs past.", "dog", 0),
    ("A boy stands by the bench, hoping one of the people will give him a coin.", "people", 0),
    ("Parked on the side of the road is a red truck.", "truck", 0),
    ("The street is decorated with parked cars and flags.", "cars", 0),
    ("The sink is a unique, circular design.", "sink", 0),
    ("A cat is on the TV.", "cat", 0),
    ("The image shows a living room. The photo is slightly blurry, and a man sits on the couch.",
     "man", 0),
    ("Q: What color is the bus? A: The bus is yellow.", "bus", 0),
    ("A woman perhaps in her thirties sits on the bench.", "woman", 0),
    ("dessert table, glass bowls of berries, cakes, pink bunting", "cakes", 0),
    ("A crane lifts the mixer through some sort of process involving several trucks.", "trucks",
     0),
    ("In those days a man sold apples at this corner.", "man", 0),
    ("The junction is used by pedestrians right now.", "pedestrians", 0),
    ("A cone stands on the platform to keep passengers back from a train pulling in.", "train",
     0),
    ("It is a storybook being read by young children.", "children", 0),
    ("A stuffed teddy bear and a plush teddy bear sit on the bed.", "teddy bear", 1),
    # A tag list's items keep their own modifiers.
    ("glass display cabinet, die-cast collection, trucks parked outside the window", "trucks",
     0),
    ("child at table, chocolate cake with wafer wheels, glass of milk, train passing outside",
     "train", 0),
    # A figure named a person is one; a habit in a where-clause; a pass is not a purpose; a
    # real rider's board; the frisbee told apart from the doubt before it.
    ("The figure on the far bench is a man reading a newspaper.", "man", 0),
    ("The quarterback passes for a touchdown while the man next to me claps.", "man", 0),
    ("A boy in a cap rides a skateboard past a poster.", "skateboard", 0),
    ("The frisbee, i think, is red and lies by a dog.", "dog", 0),
    ("The man protects the dog from the rain.", "dog", 0),
    # The captioned image and real places open a sentence too; "none of them" counts.
    ("In the photo is a man holding a cup.", "man", 0),
    ("In the kitchen, a woman is slicing bread.", "woman", 0),
    ("Three dogs are on the rug, none of them asleep.", "dogs", 0),
    ("The man is a dog owner, perhaps a vet.", "man", 0),
    ("A painting of a woman in a blue coat hangs above a chair.", "chair", 0),
    ("A bird perches on the rim. Another bird is a bronze sculpture.", "bird", 0),
    ("A cat sleeps on the rug. The cat is gray.", "cat", 0),
    # A presence that adds to the scene; a man depicted in the photo; goods on display; a
    # train one is ready to board; a fabric chair.
    ("The presence of the bench adds charm to the scene.", "bench", 0),
    ("A man is depicted in the image sitting on a bench.", "man", 0),
    ("Donuts are displayed in the glass case.", "Donuts", 0),
    ("He is ready to board the train.", "train", 0),
    ("A fabric chair stands by the window.", "chair", 0),
    ("A carriage is drawn by two horses.", "horses", 0),
    # A plain answer after the hedge word; someone keeping a real dog back; a result clause; a
    # boat rocking on the waves.
    ("Maybe; there is a dog sleeping by the door.", "dog", 0),
    ("A man is trying to keep the dog from running off.", "dog", 0),
    ("The room is so small that people can barely move.", "people", 0),
    ("A small boat is rocking on the waves.", "boat", 0),
    ("The field has grazing animals, including a horse.", "horse", 0),
    # Round 27: a hedge in the next clause, whose subject the parser glued to the first one
    # (with its verb read as a noun); a verb after a singular noun, tagged as a verb.
    ("A cyclist pauses by the fountain; the park is probably busier on weekends.", "cyclist", 0),
    ("Two pairs of skis lean against the door, and their owners will probably return soon.",
     "skis", 0),
    ("A sparrow hops along the railing, and more will likely follow.", "sparrow", 0),
    ("A pigeon pecks at the crumbs on the sidewalk.", "pigeon", 0),
    # Round 27: an embroidered bag is a bag; what someone is expected to do; a list of pictures
    # ends before "one of" that refers to another noun.
    ("An embroidered handbag hangs on the hook.", "handbag", 0),
    ("A boy stands by the gate holding a kite.", "kite", 0),
    ("A brightly painted fire hydrant stands on the corner.", "fire hydrant", 0),
    ("A freshly painted bench faces the lake.", "bench", 0),
    # Round 27: a run-on's next clause, opened by "and" and a place, after a hedged clause.
    ("It seems like he is cooking dinner and on the counter next to him there is a bowl of "
     "carrots.", "bowl", 0),
    ("A man sits by the fireplace that appears to warm the room, and a dog sleeps.", "dog", 0),
    ("A man is expected to win the race.", "man", 0),
    ("The teacher expects the students to listen, and a dog sleeps under the desk.", "dog", 0),
    # Round 28: an "as" clause with its own subject, and a participle after a comma, say what
    # goes on beside a hedged activity; the hedge does not reach them.
    ("The chef appears to be concentrating as she slices a loaf of bread with a knife.",
     "knife", 0),
    ("A girl seems to be giggling as her dog chases a frisbee across the lawn.", "frisbee", 0),
    ("The woman seems to be chatting with a friend, holding a cup of coffee.", "cup", 0),
    ("The skier appears to be showing off a jump, drawing cheers from the people below.",
     "people", 0),
    ("The girl seems to be humming to herself, carrying a backpack on one shoulder.",
     "backpack", 0),
    ("Possibly one of the dogs is asleep.", "dogs", 0),
    ("<ref>A flat-screen TV</ref><box>(120,80),(640,400)</box> on the wall shows a horse.",
     "TV", 0),
    ("A woman [0.10,0.20,0.45,0.95] sits on a bench [0.40,0.60,0.90,0.90].", "bench", 0),
    ("1. cup (0.92) [x1=10, y1=20, x2=50, y2=80]; 2. bench (1)", "bench", 0),
    ("A clock on the wall reads 3:45, and a cat sleeps below it.", "cat", 0),
    ("In the corner of the kitchen there is a refrigerator.", "refrigerator", 0),
    ("A man stands beside the poster, holding a cup of coffee.", "cup", 0),
    # A definite awaited thing placed by its own clause: moving into a place, parked there.
    ("Passengers are waiting for the train that is rolling into the station.", "train", 0),
    ("Travelers are waiting to board the train parked at the platform.", "train", 0),
    # A model in a finish the real thing has is a make, not a likeness.
    ("The oven in the corner is a stainless steel model.", "oven", 0),
    ("The man keeps the dog away from the road.", "dog", 0),
    ("She keeps the dog on a leash.", "dog", 0),
    ("There is a photo of a dog, and the real dog sleeps beneath it.", "dog", 1),
    ("In the image, there is a picture of a dog.", "dog", 0),
    ("There is a car in the driveway, probably a sedan, and a bicycle.", "bicycle", 0),
    ("There is a dog on the couch, possibly a puppy, and a cat.", "cat", 0),
    ("There are possibly two people on the bench.", "people", 0),
    # Round 29: emphasis on a noun that is there; a label that is not a medium, or the
    # captioned photo itself; the medium named as its own content.
    ("- **Foreground:** a **dog** lying on a rug next to a poster of a cat", "dog", 0),
    ("Kitchen: stove, sink and a kettle.", "sink", 0),
    ("Photo: a dog asleep on a bed.", "dog", 0),
    ("- **TV:** a flat-screen TV next to a clock", "clock", 0),
    ("- **Mural:** on the wall behind a sofa", "sofa", 0),
    # The clip shows what is there; a singular noun before its "-s" verb is no compound (the
    # noun tagged as an adjective, or after a noun modifier).
    ("The clip shows a dog catching a frisbee in a park.", "dog", 0),
    ("A green parrot lands on the fence.", "parrot", 0),
    ("An old steam locomotive puffs along the track.", "locomotive", 0),
    # A fronted place at a picture, then the clause's subject; a sugar bowl is a bowl; a
    # person re-described with a phrase of his own; a world globe shows no objects.
    ("Beside the poster, a vase of tulips and a stack of books fill the shelf.", "vase", 0),
    ("A sugar bowl sits next to the teapot.", "bowl", 0),
    ("A man in a coat, possibly a pedestrian on his way home, crosses the road.", "pedestrian",
     0),
    ("A globe sits on the desk next to a laptop.", "laptop", 0),
    ("I can confirm that there is a cat under the bed.", "cat", 0),
    ("The window shows a dog in the yard.", "dog", 0),
    ("In no time, a dog ran up to the boy.", "dog", 0),
    ("The overall composition depicts a man walking a dog.", "man", 0),
    ("The dog is there to guard the sheep.", "sheep", 0),
    ("- **People:** one holds a cup of coffee", "cup", 0),
    ("- **Potential risks:** a kitchen knife left near the edge of the table", "knife", 0),
    ("A man builds a bench out of old pallets.", "bench", 0),
    ("A woman makes a pizza from fresh dough.", "pizza", 0),
    # Round 30: a listing's or a product's photo is the captioned image; a pet monitor or a
    # shop display is no screen; a subject other than a report's label; a rack that holds
    # things has them; an enamel mug is a mug; what a man puts on a bicycle is real.
    ("Listing photo of a sectional sofa in a staged living room.", "sofa", 0),
    ("Used-car listing photo taken at dusk; the sedan is parked by a hedge.", "sedan", 0),
    ("Pet monitor: the cat is eating from the feeder.", "cat", 0),
    ("Sports store display: a leather basketball on a rack.", "basketball", 0),
    ("A rack holds two bicycles.", "bicycles", 0),
    ("An enamel mug on the table.", "mug", 0),
    ("This kitchen fits both a toaster and a kettle on the counter.", "toaster", 0),
    ("The man has not returned the frisbee.", "man", 0),
    ("I'm sure there's a laptop behind the books.", "laptop", 0),
    ("Bring the fork on the counter to the table.", "fork", 0),
    ("The man has a cat on his lap.", "cat", 0),
    ("A tea set of four cups.", "cups", 0),
    ("Old town square 🏛️ A dog sleeps by the fountain.", "dog", 0),
    # Round 31: a list before a semicolon is not the subject of the denial after it; the
    # captioned photo of a social post; "the dog would".
    ("Verified objects: cat, couch, blanket; the remote control I listed is not present.",
     "cat", 0),
    ("My photo of the sunset shows a boat on the water.", "boat", 0),
    ("The dog would probably enjoy a walk.", "dog", 0),
    ("The dog is on the bed.", "dog", 0),
    ("These toasters belong in the kitchen.", "toasters", 0),
    ("Verification summary: person, yes; skis, yes; snowboard, no.", "skis", 0),
    ("Kitchen: stove, sink, no people.", "stove", 0),
    ("A cat sits in a basket, possibly a kitten.", "kitten", 0),
    # Round 32: the captioned image's own parts; a tie worn beside a scoreboard; a brand used
    # for the thing; "remains" said of a thing there; what can be seen; the photograph's moment.
    ("The photo on the left shows a dog on a couch.", "dog", 0),
    ("A man in a suit and tie watches the scoreboard.", "tie", 0),
    ("A man throws a Frisbee to his dog in the park.", "Frisbee", 0),
    ("A dog remains on the couch after the family leaves.", "dog", 0),
    ("Cars can be seen parked along the street.", "Cars", 0),
    ("A woman stitched a patch while her cat slept beside her.", "cat", 0),
    ("The photo was taken at a time when cars were parked along the road.", "cars", 0),
    # Round 33: a definite thing said of; a car parked since the morning; a boat's type.
    ("The dog is said to be friendly with children.", "dog", 0),
    ("A man waits at the corner where a car has been parked since noon.", "car", 0),
    ("A boat can be seen further out in the water, possibly a rescue boat.", "boat", 1),
]


@pytest.mark.parametrize("caption, word, occurrence", EXISTENTIAL)
def test_existential_forms(judge, caption, word, occurrence):
    label = label_of(judge, caption, word, occurrence)
    assert label.usage == "existential", label


NOT_OBJECT = [
    ("A train pulls a passenger car along the tracks.", "car"),
    ("A crowd waits in a hall, likely an airport or train station.", "train"),
    ("A landscape with human-made structures.", "human"),
    ("A tall clock tower stands in the square.", "clock"),
    ("A zebra crossing painted on the road.", "zebra"),
    ("Two men ride motor bikes on a trail.", "bikes"),
    ("The street is a pedestrian-only zone.", "pedestrian"),
    # A train's cars are carriages.
    ("The train is moving along the tracks, with six cars visible.", "cars"),
    ("The train looks long, as it has many cars attached to it.", "cars"),
    ("A train engine sits on the tracks, with several cars following behind it.", "cars"),
    # Idioms and hyphenated names.
    ("A book lies open, as if someone was reading before bed.", "bed"),
    ("They stay at a bed-and-breakfast.", "bed"),
    # A sport, a bus stop, a time of day, a tram's car, a bed of hay.
    ("Two boys are playing baseball in the park.", "baseball"),
    ("A woman waits near the bus stop sign.", "bus"),
    ("A woman waits near the bus stop sign.", "stop sign"),
    ("It is almost ten o'clock in the morning.", "clock"),
    ("A red tram car moves down the street.", "car"),
    ("The cows rest on a hay bed.", "bed"),
    ("A man stands on the railroad ties next to the rail cars.", "ties"),
    ("A man stands on the railroad ties next to the rail cars.", "cars"),
    # Round 13: a toaster oven is an oven, a microwave oven a microwave; a toilet's bowl; a
    # train's cars however it is said.
    ("A silver toaster oven sits on the counter.", "toaster"),
    ("A microwave oven sits above the stove.", "oven"),
    ("They fill the toilet bowls with water.", "bowls"),
    ("The train is made up of several cars.", "cars"),
    ("A long train hauls cargo cars through the valley.", "cars"),
    # Round 15: a colour before another modifier; a pattern named after the animal.
    ("An old bus with orange vinyl seats.", "orange"),
    ("A zebra-striped umbrella shades the table.", "zebra"),
    # Round 16: an ingredient names the cake's flavour, not its shape; an idiom with articles.
    ("A slice of carrot cake sits on a plate.", "carrot"),
    ("The children went to bed after the party.", "bed"),
    # Round 19: a compound whose head the tagger read as a verb; a colour between colours.
    ("A bike rack with no bikes.", "bike"),
    ("A red and orange kite flies above the beach.", "orange"),
    # Round 20: the brand outside quotes.
    ("He uses an Apple laptop.", "Apple"),
    # Round 21: a verb at the root of its clause.
    ("A fisherman ties his boat to the pier.", "ties"),
    ("The boat started to sink slowly.", "sink"),
    ("A man is learning to train his horse in the arena.", "train"),
    ("A girl wears a tie-dye dress.", "tie"),
    # Round 22: "a few" counts a plural, so "ski poles" stays a compound.
    ("A few ski poles lean on the wall.", "ski"),
    # Round 29: a sign's noun modifier stays one ("a hand-painted sign advertising apple pies").
    ("A hand-painted sign advertising apple pies.", "apple"),
    # Round 32: team, brand and pet names; a drawn score.
    ("Confetti falls as the Eagles celebrate the win.", "Eagles"),
    ("The Anaheim Ducks crowd goes quiet as the visitors take a two-goal lead.", "Ducks"),
    ("The finish arch is sponsored by Red Bull.", "Bull"),
    ("Her puppy's name is Teddy.", "Teddy"),
    ("The scoreboard shows the game is a tie at 2-2.", "tie"),
]


@pytest.mark.parametrize("caption, word", NOT_OBJECT)
def test_not_object_forms(judge, caption, word):
    assert label_of(judge, caption, word).usage == "not_object"


def test_grounding_markup_is_left_out_of_the_parse_but_kept_in_the_trigger(judge):
    caption = "<ref>A poster</ref><box>(10,20),(300,400)</box> on the wall shows a horse."
    label = label_of(judge, caption, "horse")
    assert (label.usage, label.subtype) == ("non_assertive", "depictive")
    # the trigger quotes the caption as written, markup included
    assert label.trigger == "A poster</ref><box>(10,20),(300,400)</box> on the wall shows a horse"


def test_markdown_is_left_out_of_the_parse_but_kept_in_the_trigger(judge):
    label = label_of(judge, "- **Logo:** a red **kite** on the awning", "kite")
    assert (label.usage, label.subtype) == ("non_assertive", "depictive")
    assert label.trigger == "Logo:** a red **kite"
