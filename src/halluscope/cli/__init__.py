"""The `halluscope` command line: thin typer commands over `halluscope.jobs`."""
