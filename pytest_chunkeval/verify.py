"""``python -m pytest_chunkeval.verify REPORT.json``: every metric of a report recomputed with trec_eval. The command
keeps this name wherever its code lives (:mod:`pytest_chunkeval.commands.verify`)."""
import sys

from pytest_chunkeval.commands.verify import main

if __name__ == "__main__":
    sys.exit(main())
