"""Everything a person or a machine reads after a run, rendered from the judged results (never judged here): the
JSON report, the tables (terminal and Markdown), the Markdown report, the charts, the annotations, the verdict's
words, the messages of failed items and of settings that cannot be run, the frontier's tables and chart, and every
output file written through a temporary name.

Imports: core, chunking, scoring, evaluation, results, judges, frontier (the types and facts a message names).
"""
