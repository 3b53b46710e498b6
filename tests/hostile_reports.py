"""Reports whose numbers are out of their fields' ranges, for every command that reads a stored report: ``chunkeval
frontier`` (tests/test_report_file.py), ``chunkeval calibrate`` and ``--chunkeval-compare``
(tests/test_report_ranges.py). Hand-written text, so a number is exactly as a hostile file writes it (``1e400``, an
integer of 400 digits)."""
from __future__ import annotations

Q = "$.suites.a.strategies.x"


def _entry(**fields: str) -> str:
    """A report of one strategy entry whose fields are given as JSON text (a number exactly as written)."""
    body = ", ".join(f'"{k}": {v}' for k, v in fields.items())
    return '{"k": 10, "suites": {"a": {"strategies": {"x": {' + body + "}}}}}"


def _metric(value: str) -> str:
    return '{"q": {"metrics": {"file": {"ndcg@10": ' + value + "}}}}"


#: name: (report, what the message says, what --chunkeval-compare's says of the same file). The field is named in
#: every one: a range is checked by the schema, a number past a float's range while the file is read.
RANGE_CASES = {
    "ndcg 12345": (_entry(queries=_metric("12345")), f"{Q}.queries.q.metrics.file['ndcg@10']: 12345 is greater than "
                   "the maximum of 1", None),
    "ndcg negative": (_entry(queries=_metric("-0.5")), f"{Q}.queries.q.metrics.file['ndcg@10']: -0.5 is less than the "
                      "minimum of 0", None),
    "ndcg 10^400": (_entry(queries=_metric("1" + "0" * 400)), f"not a report: an integer of 401 digits at {Q}.queries.q."
                    "metrics.file['ndcg@10']", "it holds an integer of 401 digits at"),
    "aggregate 2": (_entry(aggregate='{"file": {"ndcg@10": 2}}'), f"{Q}.aggregate.file['ndcg@10']: 2 is greater than "
                    "the maximum of 1", None),
    "interval high 7": (_entry(intervals='{"file": {"ndcg@10": {"mean": 0.5, "ci_low": 0.4, "ci_high": 7, "n": 3}}}'),
                        f"{Q}.intervals.file['ndcg@10'].ci_high: 7 is greater than the maximum of 1", None),
    "bytes negative": (_entry(index='{"bytes": -1}'), f"{Q}.index.bytes: -1 is less than the minimum of 0", None),
    "bytes 10^400": (_entry(index='{"bytes": 1' + "0" * 400 + "}"),
                     f"not a report: an integer of 401 digits at {Q}.index.bytes", "it holds an integer of 401 digits"),
    "bytes 1e400": (_entry(index='{"bytes": 1e400}'), f"not a report: 1e400 (out of range) at {Q}.index.bytes",
                    "it holds 1e400 (out of range) at"),
    "bytes past 2^53": (_entry(index='{"bytes": 9007199254740992}'), f"{Q}.index.bytes: 9007199254740992 is greater "
                        "than the maximum of 9007199254740991", None),
    "chunk count 5,000 digits": (_entry(index='{"chunk_count": ' + "9" * 5000 + "}"),
                                 f"not a report: an integer of 5,000 digits at {Q}.index.chunk_count",
                                 "it holds an integer of 5,000 digits"),
    "chunk count negative": (_entry(index='{"chunk_count": -3}'), f"{Q}.index.chunk_count: -3 is less than the minimum "
                             "of 0", None),
    "embed tokens a float": (_entry(index='{"embed_tokens": 2.5}'), f"{Q}.index.embed_tokens: should be integer, not "
                             "number", None),
    "cost negative": (_entry(index='{"cost": {"embed_seconds": -2}}'), f"{Q}.index.cost.embed_seconds: -2 is less "
                      "than the minimum of 0", None),
    "files negative": (_entry(files="-1"), f"{Q}.files: -1 is less than the minimum of 0", None),
    "k 10^400": ('{"k": 1' + "0" * 400 + ', "suites": {}}', "not a report: an integer of 401 digits at $.k",
                 "it holds an integer of 401 digits at $.k"),
    "score 10^400": (_entry(queries='{"q": {"ranking": [{"chunk_id": "c", "path": "a.py", "start_line": 1, '
                            '"end_line": 2, "score": 1' + "0" * 400 + "}]}}"),
                     f"an integer of 401 digits at {Q}.queries.q.ranking[0].score", "an integer of 401 digits"),
}
