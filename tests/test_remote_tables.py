"""Index tables on an object store: ``--chunkeval-db s3://...`` against moto's S3 server, started here on a free
local port (no network), gives the same report as a local run; storage secrets are never printed.

The unit tests at the top need no server; the end-to-end ones run pytest --chunkeval through pytester with the real
model and real LanceDB writing to the local S3 server.
"""
from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lancedb  # noqa: F401  (imported once, outside the in-process runs: see tests/conftest.py)
import numpy as np
import pytest
import sentence_transformers  # noqa: F401
from project_files import SHOP_CORPUS, write_strategies, write_suite

from pytest_chunkeval.retrieval.index import IndexStore
from pytest_chunkeval.retrieval.storage import StorageOptions, parse_storage_options, redact_uri
from pytest_chunkeval.retrieval.table_rows import Row

SECRET = "wJalrXUtnFEMI-chunkeval-test-secret"  # what must never appear in output
KEY_ID = "AKIACHUNKEVALTEST"
BUCKET = "chunkeval-test"


# -- storage options, no server -----------------------------------------------------------------------------------

def test_options_read_the_environment_and_hide_secrets() -> None:
    env = {"S3_SECRET": SECRET, "S3_ENDPOINT": "http://127.0.0.1:9000"}
    opts = parse_storage_options(
        ["aws_endpoint=${S3_ENDPOINT}", "allow_http = true", f"AWS_ACCESS_KEY_ID={KEY_ID}", "# a comment", "",
         "aws_secret_access_key=${S3_SECRET}"], env)
    assert dict(opts) == {"aws_endpoint": "http://127.0.0.1:9000", "allow_http": "true",
                          "aws_access_key_id": KEY_ID, "aws_secret_access_key": SECRET}
    shown = f"{opts!r} {opts.describe()}"
    assert SECRET not in shown and KEY_ID not in shown
    assert "aws_endpoint=http://127.0.0.1:9000" in shown and "aws_secret_access_key=***" in shown
    assert opts.scrub(f"request failed: key {KEY_ID} secret {SECRET}") == "request failed: key *** secret ***"
    assert opts.as_environment()["AWS_SECRET_ACCESS_KEY"] == SECRET  # for the base side's subprocess
    assert opts.connect_arguments("s3://b/p") == {"storage_options": dict(opts)}


def test_bad_option_lines_name_the_line_or_variable_not_the_value() -> None:
    with pytest.raises(ValueError, match="line 2: expected key=value") as bad:
        parse_storage_options(["allow_http=true", SECRET], {})
    assert SECRET not in str(bad.value)
    with pytest.raises(ValueError, match=r"aws_secret_access_key reads \$\{NOT_SET\}, which is not set"):
        parse_storage_options(["aws_secret_access_key=${NOT_SET}"], {})


def test_uris_are_shown_without_credentials_and_cloud_gets_its_own_arguments() -> None:
    assert redact_uri("s3://user:pw@bucket/path?token=abc") == "s3://bucket/path"
    assert redact_uri("/local/folder") == "/local/folder"
    opts = StorageOptions({"api_key": "sk-1", "region": "eu-west-1", "timeout": "60s"})
    assert opts.connect_arguments("db://project") == {"api_key": "sk-1", "region": "eu-west-1",
                                                      "storage_options": {"timeout": "60s"}}


def test_a_bad_ini_line_is_one_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini(f"[pytest]\nchunkeval_storage_options =\n    allow_http=true\n    {SECRET}\n")
    result = pytester.runpytest("--chunkeval", "--co")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "chunkeval_storage_options line 2" in result.stderr.str()
    assert SECRET not in result.stdout.str() + result.stderr.str()


# -- a local S3 server ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def s3() -> Iterator[dict[str, str]]:
    """moto's S3 server on a free port of 127.0.0.1, with one bucket; its storage options for LanceDB."""
    boto3 = pytest.importorskip("boto3", reason="the test extra installs moto[server] (and boto3)")
    server_mod = pytest.importorskip("moto.server", reason="the test extra installs moto[server]")
    server = server_mod.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=KEY_ID, aws_secret_access_key=SECRET,
                 region_name="us-east-1").create_bucket(Bucket=BUCKET)
    yield {"aws_endpoint": endpoint, "allow_http": "true", "aws_region": "us-east-1",
           "aws_access_key_id": KEY_ID, "aws_secret_access_key": SECRET}
    server.stop()


def test_store_builds_measures_verifies_and_drops_on_s3(s3: dict[str, str], tmp_path: Path) -> None:
    """The store-level operations with no local folder behind them (small made-up vectors)."""
    rows = [Row("a.py#0", "a.py", 1, 2, "def retry_with_backoff(): pass"), Row("b.py#0", "b.py", 1, 1, "x = 1")]
    vectors = np.eye(2, 4, dtype=np.float32)
    remote = IndexStore(f"s3://{BUCKET}/unit", tmp_path / "locks", storage=StorageOptions(s3))
    local = IndexStore(str(tmp_path / "db"), tmp_path / "locks")
    for store in (remote, local):
        store.build("t", rows, vectors)
    assert remote._names() == {"t"} and remote.problem("t", expected_rows=2) is None
    assert remote.size_bytes("t") == local.size_bytes("t") > 0  # the content's size, wherever it lies
    assert remote.search("t", vectors[0], "retry backoff", "hybrid", 2)[0].chunk_id == "a.py#0"
    remote.drop("t")
    assert remote._names() == set()
    assert not (tmp_path / "unit").exists()  # nothing was written to a local folder named after the URI


# -- end to end ----------------------------------------------------------------------------------------------------

STRATEGIES = """
    from pytest_chunkeval import FileLevelChunker, FixedSizeChunker, strategy

    @strategy
    def file_level():
        return FileLevelChunker()

    @strategy
    def fixed_size():
        return FixedSizeChunker(max_chunk_size=120, overlap=20)
"""
CORPUS = {
    **SHOP_CORPUS,
    "retry.py": "import time\n\n\ndef retry(fn, attempts=3):\n    for n in range(attempts):\n        try:\n"
                "            return fn()\n        except OSError:\n            time.sleep(2 ** n)\n",
}
GOLDEN = """
    corpus: corpus
    queries:
      - id: password-hash
        query: How are user passwords hashed with a salt?
        relevant:
          - path: auth.py
            lines: [4, 5]
      - id: order-total
        query: compute the total price of an order after a discount
        relevant:
          - path: orders.py
      - id: retry
        query: retry a call with exponential backoff
        relevant:
          - path: retry.py
"""


@pytest.fixture
def project(pytester: pytest.Pytester, s3: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A tiny project whose ini names the endpoint and reads the keys from the environment, as a team would."""
    monkeypatch.setenv("CHUNKEVAL_TEST_S3_ENDPOINT", s3["aws_endpoint"])
    monkeypatch.setenv("CHUNKEVAL_TEST_S3_KEY", KEY_ID)
    monkeypatch.setenv("CHUNKEVAL_TEST_S3_SECRET", SECRET)
    pytester.makeini(textwrap.dedent("""
        [pytest]
        chunkeval_storage_options =
            aws_endpoint=${CHUNKEVAL_TEST_S3_ENDPOINT}
            allow_http=true
            aws_region=us-east-1
            aws_access_key_id=${CHUNKEVAL_TEST_S3_KEY}
            aws_secret_access_key=${CHUNKEVAL_TEST_S3_SECRET}
    """))
    write_strategies(pytester.path, {"both.py": STRATEGIES})
    write_suite(pytester.path / "golden" / "shop", CORPUS, GOLDEN)
    return pytester


def _run(p: pytest.Pytester, name: str, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    """One evaluation with its own cache folder, so that nothing (embeddings, rankings) is served from another
    run's cache: every ranking of the S3 run comes from a search of the tables on the S3 server."""
    report = p.path / f"{name}.json"
    result = p.runpytest("--chunkeval", "-p", "no:cacheprovider", "--chunkeval-no-progress",
                         f"--chunkeval-report={report}", "-o", f"chunkeval_cache_dir=.cache-{name}", *args)
    return result, json.loads(report.read_text())


def _metrics(report: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for suite, data in report["suites"].items():
        for name, s in data["strategies"].items():
            rankings = {q: [r["chunk_id"] for r in v["ranking"]] for q, v in s["queries"].items()}
            index = {k: s["index"][k] for k in ("table", "bytes", "chunk_count", "text_bytes")}
            out[(suite, name)] = (s["aggregate"], rankings, index)
    return out


@pytest.mark.slow
def test_s3_tables_give_the_local_report_and_never_print_secrets(project: pytest.Pytester, s3: dict[str, str]) -> None:
    uri = f"s3://{BUCKET}/e2e/lancedb"
    local, local_report = _run(project, "local")
    assert local.ret == 0, local.stdout.str()[-2000:]
    remote, remote_report = _run(project, "s3", f"--chunkeval-db={uri}")
    assert remote.ret == 0, remote.stdout.str()[-2000:]

    assert _metrics(remote_report) == _metrics(local_report)
    assert all(not s["index"]["reused"] for d in remote_report["suites"].values() for s in d["strategies"].values())
    tables = IndexStore(uri, project.path / "locks", storage=StorageOptions(s3))._names()
    assert tables == {s["index"]["table"] for d in remote_report["suites"].values() for s in d["strategies"].values()}
    assert not (project.path / "s3:").exists()  # the URI was not taken for a relative folder

    header = remote.stdout.str()
    assert f"chunkeval: index tables in {uri} (storage options: " in header and "aws_secret_access_key=***" in header
    # A second run in a fresh cache folder finds and verifies every table on the server instead of building it.
    again, again_report = _run(project, "s3-again", f"--chunkeval-db={uri}")
    assert again.ret == 0
    assert all(s["index"]["reused"] for d in again_report["suites"].values() for s in d["strategies"].values())
    assert _metrics(again_report) == _metrics(local_report)

    # --chunkeval-clean on the object store: a table of a strategy nobody registers any more is dropped.
    store = IndexStore(uri, project.path / "locks", storage=StorageOptions(s3))
    store.build("shop__gone__" + "0" * 20, [Row("a#0", "a.py", 1, 1, "x")], np.ones((1, 4), np.float32))
    cleaned, _ = _run(project, "s3-clean", f"--chunkeval-db={uri}", "--chunkeval-clean")
    assert cleaned.ret == 0 and "dropped 1 stale table(s)" in cleaned.stderr.str(), cleaned.stderr.str()
    assert store._names() == tables

    for result in (remote, again, cleaned):
        printed = result.stdout.str() + result.stderr.str()
        assert SECRET not in printed and KEY_ID not in printed
    for name in ("s3", "s3-again", "s3-clean"):
        written = (project.path / f"{name}.json").read_text()
        assert SECRET not in written and KEY_ID not in written
