"""``chunkeval init``: set up pytest-chunkeval in any repository (languages, golden suites, pytest settings, an
example strategy, a GitHub workflow). Each module has one job; :mod:`.cli` puts them in order."""
