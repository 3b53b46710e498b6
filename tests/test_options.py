"""Settings are read and checked in one place: a wrong value is one usage error naming the option, from the command
line and from the ini file alike (pytest's own message for a bad typed ini value names only the value)."""
from __future__ import annotations

import pytest

CASES = [
    (["-o", "chunkeval_k=abc"], "--chunkeval-k / ini chunkeval_k must be an integer from 1 to 10,000, got 'abc'"),
    (["--chunkeval-k=2.5"], "--chunkeval-k / ini chunkeval_k must be an integer from 1 to 10,000, got '2.5'"),
    (["--chunkeval-k=0"], "--chunkeval-k / ini chunkeval_k must be an integer from 1 to 10,000, got 0"),
    (["-o", "chunkeval_gate_ndcg_gain=ten"], "ini chunkeval_gate_ndcg_gain must be a number from -1 to 100, got 'ten'"),
    (["-o", "chunkeval_regression_alpha=maybe"],
     "ini chunkeval_regression_alpha must be a number over 0 and up to 1, or 'off', got 'maybe'"),
    (["-o", "chunkeval_regression_tolerance=-1"],
     "ini chunkeval_regression_tolerance must be a number from 0 to 1, got -1.0"),
    (["--chunkeval-retrieval=dense"], "--chunkeval-retrieval / ini chunkeval_retrieval must be one of hybrid, vector, fts, got 'dense'"),
    (["-o", "chunkeval_gate_mode=lines"], "ini chunkeval_gate_mode must be one of file, chunk, got 'lines'"),
    (["--chunkeval-compare=missing.json"], "--chunkeval-compare must be an existing report file, got '*/missing.json'"),
    # the embedder's settings
    (["--chunkeval-device=gpu"],
     "--chunkeval-device / ini chunkeval_device must be one of cpu, cuda, mps (or cuda:N), got 'gpu'"),
    (["-o", "chunkeval_backend=tensorrt"],
     "--chunkeval-backend / ini chunkeval_backend must be one of torch, onnx, onnx-int8, got 'tensorrt'"),
    (["--chunkeval-batch-size=0"],
     "--chunkeval-batch-size / ini chunkeval_batch_size must be an integer from 1 to 65,536, got 0"),
    (["--chunkeval-batch-size=many"],
     "--chunkeval-batch-size / ini chunkeval_batch_size must be an integer from 1 to 65,536, got 'many'"),
    (["--chunkeval-backend=onnx", "--chunkeval-device=mps"], "--chunkeval-backend onnx runs on cpu or cuda, not mps"),
    # the same wording for every setting's own check, from the settings table
    (["--chunkeval-columns=chunk,lines"],
     "--chunkeval-columns / ini chunkeval_columns must be one of chunk, budget, all, got 'lines'"),
    (["-o", "chunkeval_max_fallback=1.5"],
     "--chunkeval-max-fallback / ini chunkeval_max_fallback must be a share from 0 to 1, got 1.5"),
    (["--chunkeval-baseline= "], "--chunkeval-baseline / ini chunkeval_baseline must be a strategy name, got ''"),
    (["--chunkeval-engine=dask"], "--chunkeval-engine / ini chunkeval_engine must be one of local, ray, got 'dask'"),
    (["-o", "chunkeval_regression_correction=Bonferroni"],
     "ini chunkeval_regression_correction must be one of holm, bh, none, got 'bonferroni'"),
    (["-o", "chunkeval_regression_alpha=2"],
     "ini chunkeval_regression_alpha must be a number over 0 and up to 1, or 'off', got 2.0"),
    (["-o", "chunkeval_storage_options=region"],
     "ini chunkeval_storage_options line 1: expected key=value, got a line without *"),
]


@pytest.mark.parametrize(("args", "message"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_a_wrong_setting_is_one_usage_error_naming_it(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    (pytester.path / "strategies").mkdir()
    # A strategy module that cannot import: options are checked first, so the user hears of the setting.
    (pytester.path / "strategies" / "broken.py").write_text("raise RuntimeError('not reached')\n")
    result = pytester.runpytest("--chunkeval", "-p", "no:cacheprovider", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert "not reached" not in result.stderr.str()


@pytest.mark.parametrize(("device", "message", "present"), [
    ("cuda", "this torch (*) sees no CUDA device; use cpu, or a CUDA build of torch on a machine with a GPU",
     "torch.cuda.is_available()"),
    ("mps", "this torch (*) has no MPS device (Apple silicon only); use cpu", "torch.backends.mps.is_available()"),
])
def test_a_device_this_machine_lacks_is_one_usage_error_before_any_item(pytester: pytest.Pytester, device: str,
                                                                          message: str, present: str) -> None:
    """Issue 34: chunkeval_device = cuda on a CPU-only torch failed every item with a traceback."""
    import torch

    if eval(present, {"torch": torch}):  # noqa: S307 - one of the two expressions above
        pytest.skip(f"this machine has {device}")
    pytester.makeini(f"[pytest]\nchunkeval_device = {device}\n")
    result = pytester.runpytest("--chunkeval", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --chunkeval-device / ini chunkeval_device = {device}: {message}"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_clean_without_an_evaluation_is_a_usage_error_before_collection(pytester: pytest.Pytester) -> None:
    """--chunkeval-clean alone cleans nothing: said once, up front (and not for --collect-only, which runs nothing)."""
    pytester.makepyfile(test_never="def test_never():\n    raise AssertionError('collected')\n")
    result = pytester.runpytest("--chunkeval-clean", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --chunkeval-clean cleans the index before an evaluation: add --chunkeval"])
    assert "collected" not in result.stdout.str()
    pytester.runpytest("--chunkeval-clean", "--collect-only", "-p", "no:cacheprovider").assert_outcomes()


def test_numeric_ini_values_are_typed_in_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(["*chunkeval_k (int):*", "*chunkeval_gate_ndcg_gain (float):*"])


def test_settings_from_ini_and_command_line_are_merged_command_line_first(pytester: pytest.Pytester) -> None:
    from pytest_chunkeval.settings.options import read_options

    pytester.makeini("[pytest]\nchunkeval_k = 5\nchunkeval_gate_recall_drop = 0.02\nchunkeval_regression_alpha = off\n")
    config = pytester.parseconfig("--chunkeval", "--chunkeval-retrieval=vector", "-p", "no:cacheprovider")
    options = read_options(config)
    assert (options.k, options.retrieval, options.thresholds.recall_drop, options.regression_alpha) == (5, "vector", 0.02, None)
    config = pytester.parseconfig("--chunkeval", "--chunkeval-k=3", "-p", "no:cacheprovider")
    assert read_options(config).k == 3
    assert read_options(config).db_uri == str(pytester.path / ".chunkeval" / "lancedb")
