"""`make demo`: the main job end to end on data the project writes itself, or on real captions."""
