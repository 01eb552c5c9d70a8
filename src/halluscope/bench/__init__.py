"""NAME-Bench: classes from usage and presence, and (later) the detector protocol."""
