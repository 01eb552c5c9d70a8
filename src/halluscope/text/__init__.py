"""Caption text: mention extraction and usage labelling."""
