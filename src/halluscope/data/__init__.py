"""Inputs from disk: caption files and object presence (COCO annotations)."""
