"""``chunkeval calibrate``: how often the pull-request check is wrong, measured with its own decision code.

:mod:`.sides` turns a report's per-query numbers into the head and base sides of a simulated pull request,
:mod:`.nulls` runs changes that should move nothing (false alarms), :mod:`.inject` runs regressions of known size
(detection against the minimum detectable effect), :mod:`.cli` is the command and its table.
"""
