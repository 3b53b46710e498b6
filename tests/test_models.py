"""The embedding model as a dimension (``--chunkeval-model A,B``): items, report sections, tables and baselines kept
apart by model, each model's window read from its own files, and a single-model run left exactly as it was.

The inner runs embed with fakes (patched in for these in-process runs), one per model, whose vectors differ by model:
these tests check which items, sections, tables and pairings a run of two models makes, never which model retrieves
best. The real numbers (all-MiniLM-L6-v2 against all-mpnet-base-v2) are in docs/scale-out.md.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import lancedb  # noqa: F401  (in-process pytester runs restore sys.modules; LanceDB must be imported once)
import numpy as np
import pytest
import yaml
from project_files import SHOP_CORPUS, name_suites, set_ini, write_suite

from pytest_chunkeval.core.model_files import default_model_dir
from pytest_chunkeval.retrieval.embed import Embedder
from pytest_chunkeval.retrieval.table_identity import TableIdentity, read_record
from pytest_chunkeval.run.models import model_labels

GOLDEN = """
    corpus: corpus
    queries:
      - id: password-hash
        query: How are user passwords hashed with a salt?
        relevant:
          - path: auth.py
      - id: order-total
        query: What does an order cost after the discount?
        relevant:
          - path: orders.py
"""
SUITE = "golden/shop/queries.yaml"


class ModelFake:
    """4-d vectors from a text's length, a different function per model: ``sign`` flips which texts rank first."""

    def __init__(self, sign: float, window: int) -> None:
        self.sign = sign
        self.max_seq_length = window
        self.seen: list[str] = []

    def encode(self, texts: list[str], **_: object) -> np.ndarray:
        self.seen.extend(texts)
        vecs = np.array([[1.0, self.sign * (len(t) % 7), len(t) % 3, 1.0] for t in texts], dtype=np.float32)
        return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def model_folder(root: Path, name: str, weights: bytes, window: int | None) -> Path:
    """A sentence-transformers folder with the bundled model's config and tokenizer files, its own (tiny, valid)
    safetensors, and its own window (``sentence_bert_config.json``)."""
    from safetensors.numpy import save_file

    folder = root / name
    source = default_model_dir()
    folder.mkdir(parents=True)
    for item in source.iterdir():
        if item.is_file() and item.suffix in (".json", ".txt"):
            shutil.copy(item, folder / item.name)
    if (source / "1_Pooling").is_dir():
        shutil.copytree(source / "1_Pooling", folder / "1_Pooling")
    save_file({"w": np.frombuffer(weights, dtype=np.uint8).copy()}, str(folder / "model.safetensors"))
    if window is not None:
        (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": window,
                                                                      "do_lower_case": False}))
    return folder


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> tuple[pytest.Pytester, list[Path]]:
    models = [model_folder(pytester.path / "models", "alpha", b"alpha", None),
              model_folder(pytester.path / "models", "beta", b"beta!", 128)]
    fakes = {str(models[0].resolve()): ModelFake(1.0, 256), str(models[1].resolve()): ModelFake(-1.0, 128)}
    monkeypatch.setattr(Embedder, "model", lambda self: fakes[self.model_id])
    name_suites(pytester)
    set_ini(pytester.path, "chunkeval_strategies", '"file_level,fixed_size"', "file_level,fixed_size")
    write_suite(pytester.path / "golden" / "shop", SHOP_CORPUS, GOLDEN)
    return pytester, models


def run(p: pytest.Pytester, *args: str) -> pytest.RunResult:
    return p.runpytest("--chunkeval", "-p", "no:cacheprovider", "--chunkeval-no-progress",
                       "--chunkeval-retrieval=vector", "--chunkeval-accept-misses", *args)


def test_two_models_make_labelled_items_sections_and_tables_each_judged_against_its_own_baseline(
    project: tuple[pytest.Pytester, list[Path]],
) -> None:
    p, (alpha, beta) = project
    result = run(p, "-v", f"--chunkeval-model={alpha},{beta}", "--chunkeval-gate=fixed_size")
    out = result.stdout.str()
    for label in ("alpha", "beta"):
        for strategy in ("file_level", "fixed_size"):
            assert f"{SUITE}::{strategy}@{label}::password-hash" in out
    report = json.loads((p.path / ".chunkeval" / "chunkeval-report.json").read_text())
    sections = report["suites"]
    assert list(sections) == [f"{SUITE} · alpha", f"{SUITE} · beta"]
    for label, window in (("alpha", 256), ("beta", 128)):
        entry = sections[f"{SUITE} · {label}"]
        assert entry["model"] == label and entry["golden"] == SUITE  # the golden file stays a path (verify reads it)
        info = report["model"]["models"][label]
        assert info["max_tokens"] == window  # each model's window from its own files, never assumed
        assert info["embedding"]["embedded"] > 0
        # Like with like: each candidate is judged against the baseline evaluated with the same model.
        baseline = entry["strategies"]["file_level"]["aggregate"]["file"]["ndcg@10"]
        candidate = entry["strategies"]["fixed_size"]
        delta = candidate["vs_baseline"]["file"]["ndcg@10"]["delta"]
        assert candidate["aggregate"]["file"]["ndcg@10"] - baseline == pytest.approx(delta)
    a, b = (sections[f"{SUITE} · {m}"]["strategies"]["fixed_size"] for m in ("alpha", "beta"))
    assert a["index"]["table"] != b["index"]["table"]  # tables (and caches) apart by model
    assert report["model"]["id"] == str(alpha)  # the first model's identity, as a single-model run of it reports
    assert report["embedding"]["embedded"] == sum(i["embedding"]["embedded"] for i in report["model"]["models"].values())
    # Misses are recorded per model: one section of the accepted-misses file each, as single-model runs would.
    record = yaml.safe_load((p.path / "golden" / "shop" / "accepted_misses.yaml").read_text())
    assert {f"{alpha.resolve()} | vector | k=10", f"{beta.resolve()} | vector | k=10"} <= set(record)

    # -k selects a model; a second run reuses both models' tables (neither superseded the other) and embeds nothing.
    again = run(p, f"--chunkeval-model={alpha},{beta}", "-k", "beta")
    assert again.ret == 0
    assert list(json.loads((p.path / ".chunkeval" / "chunkeval-report.json").read_text())["suites"]) == [f"{SUITE} · beta"]
    warm = run(p, f"--chunkeval-model={alpha},{beta}")
    assert warm.ret == 0
    for entry in json.loads((p.path / ".chunkeval" / "chunkeval-report.json").read_text())["suites"].values():
        for strategy in entry["strategies"].values():
            assert strategy["index"]["reused"] is True and strategy["index"]["embedded"] == 0


def test_one_model_keeps_item_ids_and_report_keys_unlabelled(project: tuple[pytest.Pytester, list[Path]]) -> None:
    p, (alpha, _) = project
    result = run(p, "-v", f"--chunkeval-model={alpha}")
    assert f"{SUITE}::fixed_size::password-hash" in result.stdout.str() and "@alpha" not in result.stdout.str()
    report = json.loads((p.path / ".chunkeval" / "chunkeval-report.json").read_text())
    assert list(report["suites"]) == [SUITE] and "model" not in report["suites"][SUITE]
    assert "models" not in report["model"]


def test_several_models_refuse_what_they_do_not_support_yet(project: tuple[pytest.Pytester, list[Path]]) -> None:
    p, (alpha, beta) = project
    twice = run(p, f"--chunkeval-model={alpha},{alpha}/")
    assert twice.ret == pytest.ExitCode.USAGE_ERROR and "twice" in twice.stderr.str()
    compare = run(p, f"--chunkeval-model={alpha},{beta}", f"--chunkeval-compare={p.path / 'none.json'}")
    assert compare.ret == pytest.ExitCode.USAGE_ERROR


def test_model_labels_are_short_unless_two_models_share_a_name(tmp_path: Path) -> None:
    for name in ("a/m", "b/m", "c/other"):
        (tmp_path / name).mkdir(parents=True)
    assert model_labels([None, str(tmp_path / "c/other")]) == ["all-MiniLM-L6-v2", "other"]
    labels = model_labels([str(tmp_path / "a/m"), str(tmp_path / "b/m")])
    assert labels[0] != labels[1] and all(label.endswith("_m") for label in labels)
    with pytest.raises(ValueError, match="twice"):
        model_labels([None, "sentence-transformers/all-MiniLM-L6-v2"])


def test_a_tables_model_is_part_of_its_key_and_the_bundled_models_tables_keep_theirs(tmp_path: Path) -> None:
    suite = tmp_path / "queries.yaml"
    plain = TableIdentity.of(suite, "ast", "f" * 20)
    other = TableIdentity.of(suite, "ast", "f" * 20, model="/models/all-mpnet-base-v2")
    assert plain.key != other.key and plain.name != other.name
    assert b'"model"' not in next(iter(plain.record().values()))  # records as before this field existed
    assert read_record(other.record()) == other and read_record(plain.record()) == plain
