"""Caption-level hallucination metrics (CHAIR and the pieces it is built from)."""
