"""Everything a person or a machine reads after a run: the JSON report, tables, Markdown, chart."""
