"""Golden suites: queries with their relevant code, validated before anything is embedded.

A mistake in golden data silently corrupts every number downstream, so loading is strict: the JSON Schema catches
shape errors (unknown keys, wrong types, empty queries), and the checks after it catch what a schema cannot (duplicate
ids, paths outside or missing from the corpus, line spans past the end of the file). Every error names the file, the
line, the query id and the field.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any

from pytest_chunkeval.core.corpus import MAX_FILE_BYTES, Corpus, read_corpus
from pytest_chunkeval.core.ranking import Relevant

if TYPE_CHECKING:
    import yaml


class GoldenError(ValueError):
    """One or more problems in a golden file; ``problems`` holds each as 'file:line: query 'id': field: reason'."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    relevant: tuple[Relevant, ...]
    line: int = 0


@dataclass
class GoldenSuite:
    path: Path  # the golden file
    corpus: Corpus
    queries: list[Query]
    name: str = ""
    phrasing: str = "sentence"  # "keyword" for identifier-and-term queries (chunkeval golden keywords)

    @property
    def corpus_dir(self) -> Path:
        return self.corpus.root

    def file_lines(self) -> dict[str, int]:
        """Line counts of the files a relevant item names without lines: such an item stands for the whole file in
        the line-level measures, and the report keeps these counts so they can be recomputed."""
        whole = {r.path for q in self.queries for r in q.relevant if r.lines is None}
        counts = self.corpus.line_counts
        return {p: counts[p] for p in sorted(whole) if p in counts}


@lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    return json.loads(resources.files("pytest_chunkeval").joinpath("schemas/golden.schema.json").read_text("utf-8"))


def _yaml_positions(text: str) -> dict[tuple[Any, ...], int]:
    """1-based line of every node in a YAML document, by its path of keys and indices."""
    import yaml

    from pytest_chunkeval.core import safe_yaml

    positions: dict[tuple[Any, ...], int] = {}

    def walk(node: yaml.Node, where: tuple[Any, ...]) -> None:
        positions[where] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                positions[where + (key.value,)] = key.start_mark.line + 1
                walk(value, where + (key.value,))
                positions.setdefault(where + (key.value,), key.start_mark.line + 1)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, where + (i,))

    root = yaml.compose(text, Loader=safe_yaml.LOADER)
    if root is not None:
        walk(root, ())
    return positions


def _load_document(path: Path) -> tuple[Any, dict[tuple[Any, ...], int]]:
    text = path.read_text("utf-8")
    if path.suffix.lower() == ".jsonl":
        header: dict[str, Any] = {}
        queries: list[Any] = []
        positions: dict[tuple[Any, ...], int] = {}
        for lineno, line in enumerate(text.split("\n"), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise GoldenError([f"{path}:{lineno}: invalid JSON: {exc.msg} (column {exc.colno})"]) from exc
            except RecursionError:  # ``[[[[…`` past the parser's depth: no suite nests that deep
                raise GoldenError([f"{path}:{lineno}: invalid JSON: nested too deeply to read"]) from None
            if isinstance(obj, dict) and "query" not in obj and "id" not in obj and not queries:
                header.update(obj)  # an optional first line like {"corpus": "src"}
                for key in obj:
                    positions[(key,)] = lineno
                continue
            positions[("queries", len(queries))] = lineno
            queries.append(obj)
        return {**header, "queries": queries}, positions
    import yaml  # here, not at the top: pytest imports this module in every run, the plugin's off or on

    from pytest_chunkeval.core import safe_yaml

    try:
        data = safe_yaml.load(text)  # a safe loader that refuses aliases (a bomb of them never expands)
        positions = _yaml_positions(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise GoldenError([f"{path}{where}: invalid YAML: {getattr(exc, 'problem', None) or exc}"]) from exc
    return data, positions


def _line_for(positions: dict[tuple[Any, ...], int], where: tuple[Any, ...]) -> int:
    while where and where not in positions:
        where = where[:-1]
    return positions.get(where, 1)


def _query_id(data: Any, where: tuple[Any, ...]) -> str | None:
    if len(where) >= 2 and where[0] == "queries" and isinstance(where[1], int):
        try:
            qid = data["queries"][where[1]].get("id")
        except (AttributeError, IndexError, KeyError, TypeError):
            return None
        return str(qid) if isinstance(qid, (str, int)) and not isinstance(qid, bool) else None
    return None


def _field(where: tuple[Any, ...]) -> str:
    rest = where[2:] if len(where) >= 2 and where[0] == "queries" else where
    text = ""
    for part in rest:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(document)"


Problem = Callable[[tuple[Any, ...], str], None]


def _relevant(item: dict[str, Any], at: tuple[Any, ...], corpus: Corpus, corpus_dir: Path,
              problem: Problem) -> Relevant | None:
    """One relevant item, checked against the corpus; None (and a problem said at ``at``) when it cannot be used."""
    key, why = _corpus_key(item["path"], corpus, corpus_dir)
    if why is not None:
        problem(at + ("path",), why)
        return None
    lines = item.get("lines")
    why = _span_problem(lines, key, corpus.line_counts[key]) if lines is not None else None
    if why is not None:
        problem(at + ("lines",), why)
        return None
    return Relevant(key, tuple(lines) if lines else None, int(item.get("grade", 1)))


def _corpus_key(rel: str, corpus: Corpus, corpus_dir: Path) -> tuple[str, str | None]:
    """A relevant path as the corpus names it, and why it cannot be used (None when it can): it must be relative,
    stay inside the corpus (symbolic links included) and name a file the corpus read."""
    pure = PurePosixPath(rel.replace("\\", "/"))
    if pure.is_absolute() or rel.startswith(("/", "\\")):
        return "", f"{rel!r} is absolute; paths are relative to the corpus {corpus_dir}"
    drive = PureWindowsPath(rel).drive  # ``C:x``, ``C:/x``: a letter and a colon; ``::x`` or ``ab:c`` are names
    if drive:
        return "", f"{rel!r} names a drive ({drive}); paths are relative to the corpus {corpus_dir}"
    if ".." in pure.parts:
        return "", f"{rel!r} leaves the corpus {corpus_dir}"
    key = pure.as_posix()
    try:
        target = (corpus_dir / key).resolve()
    except (RuntimeError, OSError) as exc:  # a symbolic link loop on the way
        return key, f"{rel!r} is not a readable file in the corpus {corpus_dir} ({exc})"
    if not target.is_relative_to(corpus_dir):  # a symbolic link on the way leads out of the corpus
        return key, f"{rel!r} leaves the corpus {corpus_dir} (it resolves to {target})"
    if key not in corpus.files:
        reason = corpus.skipped.get(key)
        return key, f"{rel!r} is not a readable file in the corpus {corpus_dir}" + (f" ({reason})" if reason else "")
    return key, None


def _outside(corpus_dir: Path, root: Path, path: Path) -> str | None:
    """Why a resolved corpus folder may not be read (None when it may): it is neither in the project nor in the
    golden file's folder (both resolved, so a symbolic link out of them counts as out)."""
    homes = (root.resolve(), path.parent.resolve())
    if any(corpus_dir.is_relative_to(home) for home in homes):
        return None
    return (f"folder {corpus_dir} is outside the project {homes[0]} and outside the golden file's folder {homes[1]}; "
            "allow it with --chunkeval-allow-outside-corpus (ini chunkeval_allow_outside_corpus = true)")


def _span_problem(lines: list[int], key: str, n: int) -> str | None:
    """Why a relevant line range ``[start, end]`` of ``key`` (``n`` lines long) is wrong; None when it is right."""
    start, end = lines
    if start > end:
        return f"start {start} is after end {end}"
    if end > n:
        return f"[{start}, {end}] runs past the end of {key} ({n} lines)"
    return None


def load_golden(path: Path | str, root: Path | None = None, outside: bool = False,
                max_file_bytes: int = MAX_FILE_BYTES) -> GoldenSuite:
    """Load and validate a golden file (YAML or JSONL) and read its corpus.

    With ``root`` (the project: the plugin passes the ini file's folder) the corpus must lie inside it or inside the
    golden file's own folder, unless ``outside``: a golden file is repository content, and its ``corpus: /etc`` would
    otherwise index any folder of the machine into tables, caches and reports. A suite given on the command line from
    elsewhere keeps its corpus beside it. Corpus files over ``max_file_bytes`` (0: no limit) are skipped, with
    their size in the reason (:func:`~pytest_chunkeval.core.corpus.read_corpus`)."""
    import jsonschema

    path = Path(path)
    if not path.is_file():
        raise GoldenError([f"{path}: golden file does not exist"])
    data, positions = _load_document(path)
    problems: list[str] = []

    def problem(where: tuple[Any, ...], reason: str) -> None:
        qid = _query_id(data, where)
        who = f" query {qid!r}:" if qid else ""
        problems.append(f"{path}:{_line_for(positions, where)}:{who} {_field(where)}: {reason}")

    validator = jsonschema.Draft202012Validator(_schema())
    for err in sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]):
        problem(tuple(err.absolute_path), err.message)
    if problems:
        raise GoldenError(problems)

    corpus_dir = (path.parent / data.get("corpus", "corpus")).resolve()
    if root is not None and not outside and (why := _outside(corpus_dir, root, path)):
        raise GoldenError([f"{path}:{_line_for(positions, ('corpus',))}: corpus: {why}"])
    if not corpus_dir.is_dir():
        raise GoldenError([f"{path}:{_line_for(positions, ('corpus',))}: corpus: folder {corpus_dir} does not exist"])
    corpus = read_corpus(corpus_dir, max_file_bytes)

    seen: dict[str, int] = {}
    queries: list[Query] = []
    for i, q in enumerate(data["queries"]):
        where = ("queries", i)
        line = _line_for(positions, where)
        qid = str(q["id"])  # integer ids (common in generated suites) become their decimal string
        if qid in seen:
            problem(where + ("id",), f"duplicate id (first used at line {seen[qid]})")
        seen.setdefault(qid, line)
        relevant = [r for j, item in enumerate(q["relevant"])
                    if (r := _relevant(item, where + ("relevant", j), corpus, corpus_dir, problem)) is not None]
        queries.append(Query(qid, " ".join(q["query"].split()), tuple(relevant), line))
    if problems:
        raise GoldenError(problems)
    name = data.get("name") or path.parent.name
    return GoldenSuite(path=path, corpus=corpus, queries=queries, name=name,
                       phrasing=data.get("phrasing") or "sentence")
