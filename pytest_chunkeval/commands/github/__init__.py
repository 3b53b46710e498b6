"""``chunkeval comment``: the Markdown report as one pull-request comment, kept up to date run after run.

A job summary is read only by whoever opens the run; the comment puts the verdict where a reviewer already is.
:mod:`.api` speaks to GitHub's REST API, :mod:`.comment` builds the body and decides create or update, :mod:`.cli`
is the command line.
"""

# How another repository names this action. The owner is a placeholder until the repository is published under
# its real one: change it here, and tests/test_action.py names every line of the README and docs/ that still says
# the old one.
ACTION_REF = "pytest-chunkeval/pytest-chunkeval@v0"
