"""The Lark engine: an EBNF grammar parses the code; the ADR's two EBNF strategies read its AST."""
