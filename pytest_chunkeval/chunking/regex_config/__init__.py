"""The regex-config engine: a JSON config of block and statement patterns drives 'grammar definition' chunking
(the ADR's name; no grammar is parsed)."""
