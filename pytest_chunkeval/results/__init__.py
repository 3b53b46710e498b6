"""The typed results every judge and renderer reads, built from a run or from a stored report alike
(:mod:`.typed`), in their one order (:mod:`.ordering`); the judges' decisions as plain data they carry
(:mod:`.decisions`); what a base must share with head to be compared (:mod:`.comparable`); a stored report read
back strictly (:mod:`.report_file`).

Imports: core, scoring, evaluation (the live run a result is built from, for its type only).
"""
