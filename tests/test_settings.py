"""Each setting is declared once, in pytest_chunkeval/settings/table.py, and everything else is made from it: the
``Options`` fields and their defaults, the flags and ini entries of ``pytest --help``, and one wording of a usage
error from the command line and from the ini file alike. Defaults the library's own dataclasses still carry (for
callers that use them without a pytest run) must agree with the table."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from pytest_chunkeval.settings import GROUPS, SETTING, SETTINGS
from pytest_chunkeval.settings.options import CONTEXT_FIELDS, Options, read_options


def test_options_has_one_field_per_setting_of_the_same_name() -> None:
    fields = [f.name for f in dataclasses.fields(Options) if f.name not in CONTEXT_FIELDS]
    assert sorted(fields) == sorted(s.name for s in SETTINGS)


def test_every_setting_is_declared_once_and_completely() -> None:
    flags = [s.flag for s in SETTINGS if s.flag]
    inis = [s.ini for s in SETTINGS if s.ini]
    assert len(set(flags)) == len(flags) and len(set(inis)) == len(inis)
    assert all(f.startswith("--chunkeval") for f in flags) and all(i.startswith("chunkeval_") for i in inis)
    for s in SETTINGS:
        assert s.flag or s.ini, s.name
        assert s.group in GROUPS and s.help.strip(), s.name
        assert not s.repeatable or s.flag, s.name
        assert not s.merged or (s.flag and s.ini), s.name
        assert s.verify(s.typed_default()) is None, f"{s.name}: the default fails its own check"


def test_the_options_defaults_are_the_tables() -> None:
    options = Options(rootdir=Path("/project"))
    assert {s.name: getattr(options, s.name) for s in SETTINGS} == {s.name: s.typed_default() for s in SETTINGS}
    assert options.k == 10 and options.retrieval == "hybrid" and options.report is None  # read_options: the cache folder


def test_a_run_without_settings_gets_the_tables_defaults_resolved_in_the_ini_folder(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    options = read_options(pytester.parseconfig("--chunkeval", "-p", "no:cacheprovider"))
    assert options.evaluate and options.k == SETTING["k"].typed_default()
    assert options.report == pytester.path / ".chunkeval" / "chunkeval-report.json"
    assert options.strategies_dir == pytester.path / "strategies"
    assert options.cache_dir == pytester.path / ".chunkeval"


def _defaults(cls: type) -> dict[str, Any]:
    return {f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}


@pytest.mark.parametrize(("where", "pairs"), [
    ("pytest_chunkeval.judges.gates:Thresholds", {"ndcg_gain": "gate_ndcg_gain", "recall_drop": "gate_recall_drop",
                                                   "size_increase": "gate_size_increase", "mode": "gate_mode",
                                                   "size_measure": "gate_size_measure"}),
    ("pytest_chunkeval.judges.comparison:Policy", {"k": "k", "tolerance": "regression_tolerance",
                                                    "alpha": "regression_alpha",
                                                    "size_increase": "regression_size_increase",
                                                    "size_measure": "gate_size_measure",
                                                    "correction": "regression_correction"}),
    ("pytest_chunkeval.retrieval.embed:Embedder", {"name_or_path": "model", "device": "device",
                                                   "batch_size": "batch_size", "backend": "backend"}),
    ("pytest_chunkeval.evaluation.evaluate:EvalConfig", {"k": "k", "retrieval": "retrieval", "chunk_timeout": "chunk_timeout",
                                             "strategy_memory": "strategy_memory",
                                             "max_chunks": "max_chunks_per_file"}),
    ("pytest_chunkeval.run.base_ref:BaseRequest", {"k": "k", "retrieval": "retrieval", "baseline": "baseline",
                                               "model": "model", "backend": "backend"}),
    ("pytest_chunkeval.output.report:Summary", {"correction": "regression_correction",
                                                "tolerance": "regression_tolerance", "columns": "columns"}),
])
def test_the_librarys_own_defaults_agree_with_the_table(where: str, pairs: dict[str, str]) -> None:
    import importlib

    module, name = where.split(":")
    defaults = _defaults(getattr(importlib.import_module(module), name))
    assert {f: defaults[f] for f in pairs} == {f: SETTING[s].typed_default() for f, s in pairs.items()}


def test_the_derived_settings_agree_with_the_library() -> None:
    from pytest_chunkeval.judges.comparison import Policy
    from pytest_chunkeval.judges.gates import Thresholds

    options = Options(rootdir=Path())
    assert options.thresholds == Thresholds() and options.policy == Policy()


def test_help_shows_every_flag_and_ini_key_with_its_help(pytester: pytest.Pytester) -> None:
    out = pytester.runpytest("--help").stdout.str()
    squeezed = " ".join(out.split())
    for s in SETTINGS:
        first_words = " ".join(s.help.split()[:4])
        for name in (s.flag, s.ini):
            if name:
                assert name in out, name
        assert first_words in squeezed, s.name
        if s.ini and s.kind.ini_type:
            assert f"{s.ini} ({s.kind.ini_type})" in out  # typed ini values say what they take


NUMERIC = [s for s in SETTINGS if s.flag and s.ini and s.kind.ini_type in ("int", "float")]


@pytest.mark.parametrize("setting", NUMERIC, ids=[s.name for s in NUMERIC])
def test_the_command_line_and_the_ini_file_get_the_same_message(pytester: pytest.Pytester, setting: Any) -> None:
    messages = []
    for args in ([f"{setting.flag}=lots"], ["-o", f"{setting.ini}=lots"]):
        with pytest.raises(pytest.UsageError) as error:
            read_options(pytester.parseconfig("--chunkeval", "-p", "no:cacheprovider", *args))
        messages.append(str(error.value))
    assert messages == [f"{setting.flag} / ini {setting.ini} must be {setting.kind.noun}, got 'lots'"] * 2


def test_the_gate_candidates_of_the_ini_and_the_command_line_add_up(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nchunkeval_gate_candidates =\n    ast\n    fixed_size\n")
    config = pytester.parseconfig("--chunkeval", "--chunkeval-gate=peers", "--chunkeval-gate", "ast",
                                  "-p", "no:cacheprovider")
    assert read_options(config).gate_candidates == ["ast", "fixed_size", "peers"]


def test_a_flag_only_given_keeps_the_ini_folder_for_relative_paths(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nchunkeval_report = out/r.json\nchunkeval_grammar =\n    g/lang.lark\n")
    sub = pytester.mkdir("sub")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(sub)
        options = read_options(pytester.parseconfig("--chunkeval", "--chunkeval-markdown=m.md",
                                                    "-c", str(pytester.path / "tox.ini"), "-p", "no:cacheprovider"))
    assert options.report == pytester.path / "out" / "r.json"
    assert options.markdown == pytester.path / "m.md"
    assert options.grammars == [pytester.path / "g" / "lang.lark"]


def test_the_recording_command_leaves_out_what_the_table_marks_as_output_only() -> None:
    from pytest_chunkeval.settings.flags import output_only_flags

    flags = output_only_flags()
    assert flags["--chunkeval-base"] is True and flags["--chunkeval-accept-misses"] is False
    assert "--chunkeval-golden" not in flags and "--chunkeval-k" not in flags
