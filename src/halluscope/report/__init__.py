"""Reports: tables and summaries written atomically, printed as Markdown."""
