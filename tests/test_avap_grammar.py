"""The AVAP Lark grammar engine: every construct of LANGUAGE.md parses, bad input is rejected with file:line:column,
a broken grammar names the grammar file and line, and the whole golden corpus parses.

The constructs are checked against a frozen, test-owned grammar (tests/data/avap_fixture/avap.lark), not the shipped
strategies/avap.lark: a pull request that changes the shipped grammar on purpose must fail only the chunk snapshots
(tests/test_chunk_snapshots.py), where the reviewer reads its effect. The shipped grammar is held only to what its
header promises CI checks: it loads as an LALR grammar and every golden/avap corpus file still parses."""
from __future__ import annotations

from pathlib import Path

import pytest
from lark import Tree

from pytest_chunkeval.chunking.lark.engine import GrammarLoadError, LarkGrammar, SourceSyntaxError
from pytest_chunkeval.chunking.lark.strategies import load_grammar

ROOT = Path(__file__).resolve().parents[1]
# Frozen copy of the shipped grammar as of the engine's tests; never sync it with strategies/ (see its README).
GRAMMAR = ROOT / "tests" / "data" / "avap_fixture" / "avap.lark"
SHIPPED_GRAMMAR = ROOT / "strategies" / "avap.lark"
CORPUS = ROOT / "golden" / "avap" / "corpus"


@pytest.fixture(scope="module")
def grammar() -> LarkGrammar:
    return load_grammar(GRAMMAR)


def parse(grammar: LarkGrammar, src: str) -> Tree:
    return grammar.parse(src, "snippet.avap").tree


def nodes(tree: Tree, data: str) -> list[Tree]:
    return list(tree.find_data(data))


# ---- valid constructs ---------------------------------------------------------------------------------------


def test_function_block_with_params_and_return(grammar: LarkGrammar) -> None:
    tree = parse(grammar, "function discount(price, pct){\n    cut = price * pct / 100\n    return(price - cut)\n}\n")
    (fn,) = nodes(tree, "function_block")
    assert [str(t) for t in next(fn.find_data("params")).children] == ["price", "pct"]
    assert nodes(fn, "return_stmt")


def test_function_brace_on_next_line_and_empty_params(grammar: LarkGrammar) -> None:
    assert nodes(parse(grammar, "function ping()\n{\n    addResult(ok)\n}\n"), "function_block")


def test_if_else_end_and_expression_form(grammar: LarkGrammar) -> None:
    src = 'if(age, 18, ">")\n    addVar(ok, True)\nelse()\n    addVar(ok, False)\nend()\nif(None, None, "age >= 18 and ok")\n    x = 1\nend()\n'
    tree = parse(grammar, src)
    assert len(nodes(tree, "if_block")) == 2
    assert len(nodes(tree, "else_clause")) == 1


def test_loop_with_end_as_an_ordinary_name(grammar: LarkGrammar) -> None:
    tree = parse(grammar, "end = 10\nstartLoop(i, start, end)\n    total = total + items[i]\nendLoop()\n")
    (loop,) = nodes(tree, "loop_block")
    assert str(loop.children[0]) == "i"


@pytest.mark.parametrize("handler", ["exception(err)", "except()", "except(e)"])
def test_try_with_exception_and_older_except(grammar: LarkGrammar, handler: str) -> None:
    tree = parse(grammar, f"try()\n    RequestGet(url, {{}}, {{}}, res, 5)\n{handler}\n    _status = 502\nend()\n")
    assert len(nodes(tree, "handler")) == 1


def test_go_async_and_gather(grammar: LarkGrammar) -> None:
    tree = parse(grammar, "go_async(t1)\n    a = conn.query(\"SELECT 1\")\nend()\nres = gather(t1, 8)\n")
    assert nodes(tree, "async_block") and nodes(tree, "cmd_async") and nodes(tree, "db_query")


def test_nesting_four_deep(grammar: LarkGrammar) -> None:
    src = ("function f(xs){\n  startLoop(i, 0, 3)\n    try()\n      if(i, 2, \"=\")\n        go_async(t)\n"
           "          x = 1\n        end()\n      end()\n    exception(e)\n      y = 2\n    end()\n  endLoop()\n}\n")
    tree = parse(grammar, src)
    async_block = nodes(tree, "async_block")[0]
    assert async_block.meta.line == 5 and async_block.meta.end_line == 7
    assert [len(nodes(tree, k)) for k in ("function_block", "loop_block", "try_block", "if_block")] == [1, 1, 1, 1]


def test_expressions(grammar: LarkGrammar) -> None:
    src = (
        "a = b if c > 1 else -d\n"
        "q = \"UPDATE users SET seen = '%s' WHERE id = %s\" % (now, uid)\n"
        "l = [1, 2.5, \"x\", [None]]\n"
        "d = {\"k\": v, 'n': {\"deep\": True}}\n"
        "e = items[i][0].name + $price\n"
        "f = not x in ys and z not in ws or w is not None\n"
        "s = email.split(\"@\")[-1][1:]\n"
        "discount($price, 20)\n"
        "items[0] = 1\n"
    )
    tree = parse(grammar, src)
    assert len(nodes(tree, "assign")) == 7 + 1
    assert nodes(tree, "conditional") and nodes(tree, "tuple") and nodes(tree, "dict") and nodes(tree, "global_var")
    assert nodes(tree, "slice") and nodes(tree, "attribute")


def test_multiline_call_and_literal(grammar: LarkGrammar) -> None:
    src = 'registerEndpoint("/a", "GET",\n    [auth, rate_limit],\n    "Desc", handler, out)\nx = {\n  "a": 1\n}\n'
    tree = parse(grammar, src)
    assert nodes(tree, "endpoint_handler") and nodes(tree, "dict")


COMMANDS = [
    ('registerEndpoint("/p", "GET", [], "d", h, out)', "endpoint"),
    ('addParam("id", id)', "endpoint"),
    ('getQueryParamList("tag", tags)', "endpoint"),
    ("addResult(x)", "endpoint"),
    ("addVar(x, 1)", "variables"),
    ('replace(text, "a", "b", out)', "variables"),
    ("randomString(16, token)", "variables"),
    ("variableToList(v, lst)", "lists"),
    ("itemFromList(lst, 0, item)", "lists"),
    ("getListLen(lst, n)", "lists"),
    ('variableFromJSON(j, "k", v)', "lists"),
    ('AddVariableToJSON("k", v, j)', "lists"),
    ('conn = avapConnector("QkFTRTY0")', "database"),
    ('ormCheckTable("users", ok)', "database"),
    ('ormDirect("SELECT 1", res)', "database"),
    ('ormAccessSelect("id", "users", rows, "id = 1")', "database"),
    ('ormAccessInsert("a, b", vals, "users", res)', "database"),
    ('ormAccessUpdate("a", vals, "users", res, "id = 1")', "database"),
    ("RequestGet(url, {}, headers, res, 5)", "http"),
    ("RequestPost(url, {}, headers, body, res, 5)", "http"),
    ('getDateTime("%Y", 0, "UTC", now)', "time"),
    ('stampToDatetime(ts, "%Y", 0, out)', "time"),
    ("encodeSHA256(v, h)", "crypto"),
    ("encodeMD5(v, h)", "crypto"),
    ("gather(t, 5)", "async"),
]


@pytest.mark.parametrize(("line", "category"), COMMANDS, ids=[c[0].split("(")[0] for c in COMMANDS])
def test_every_command_is_a_categorised_call(grammar: LarkGrammar, line: str, category: str) -> None:
    (cmd,) = nodes(parse(grammar, line + "\n"), f"cmd_{category}")
    assert line.split("(")[0].split("= ")[-1] == str(cmd.children[0])


def test_import(grammar: LarkGrammar) -> None:
    (imp,) = nodes(parse(grammar, 'import "lib/db_helpers.avap"\n'), "import_stmt")
    assert str(imp.children[0]) == '"lib/db_helpers.avap"'


def test_keywords_inside_strings_and_comments_open_nothing(grammar: LarkGrammar) -> None:
    src = ('// if(x, 1, "=") try() function f(){\n/// end() }\n/* startLoop(i, 0, 1)\n   go_async(t) */\n'
           'addVar(msg, "if you try() this, end() it }")\nx = \'function g(){\'  // }\n')
    tree = parse(grammar, src)
    assert not any(nodes(tree, k) for k in ("if_block", "try_block", "function_block", "loop_block", "async_block"))
    assert len(nodes(tree, "assign")) == 1


def test_file_without_trailing_newline(grammar: LarkGrammar) -> None:
    assert nodes(parse(grammar, "function f(){\n  x = 1\n}"), "function_block")


# ---- invalid input -------------------------------------------------------------------------------------------

INVALID = [
    ("x = = 1\n", 1, 5, "unexpected '='"),
    ('addVar(a, "open\naddResult(a)\n', 1, 11, "unterminated string"),
    ("x = 1\n}\n", 2, 1, "unexpected '}'"),
    ("end()\n", 1, 1, "unexpected 'end(...)'"),
    ("x = 1\nendLoop()\n", 2, 1, "unexpected 'endLoop'"),
    ('registerEndpoint("/x", "GET")\n', 1, 29, "expected ','"),
    ("x = 1\nelse()\n", 2, 1, "unexpected 'else'"),
    ("function f(a b){\n}\n", 1, 14, "unexpected 'b'"),
    ('if(a, 1, "=")\n  x = 1\nendLoop()\n', 3, 1, "inside 'if' block opened at line 1"),
    ("function f(){\n  y = 2\n  if(a, 1, \"=\")\n    x = 1\n}\n", 5, 1, "inside 'if' block opened at line 3"),
    ("x = 1 +\n", 1, 8, "unexpected end of line"),
    ("x = #1\n", 1, 5, "unexpected character '#'"),
]


@pytest.mark.parametrize(("src", "line", "column", "reason"), INVALID, ids=[i[3] for i in INVALID])
def test_invalid_snippets_are_rejected_with_position(grammar: LarkGrammar, src: str, line: int, column: int, reason: str) -> None:
    with pytest.raises(SourceSyntaxError) as info:
        grammar.parse(src, "bad.avap")
    err = info.value
    assert (err.line, err.column) == (line, column), str(err)
    assert reason in err.reason
    assert str(err).startswith(f"bad.avap:{line}:{column}: ")


def test_unclosed_block_at_eof_names_the_block_and_its_line(grammar: LarkGrammar) -> None:
    src = "addParam(\"id\", id)\nstartLoop(i, 0, 3)\n    try()\n        x = 1\n"
    with pytest.raises(SourceSyntaxError) as info:
        grammar.parse(src, "eof.avap")
    assert "'try' block opened at line 3 is not closed (expected end())" in str(info.value)


def test_bad_files_directory_is_rejected(grammar: LarkGrammar) -> None:
    bad = sorted((ROOT / "tests" / "data" / "avap_bad").glob("*.avap"))
    assert len(bad) >= 4
    for path in bad:
        with pytest.raises(SourceSyntaxError, match=rf"^{path.name}:\d+:\d+: "):
            grammar.parse(path.read_text(), path.name)


# ---- the grammar file itself ------------------------------------------------------------------------------------


def test_grammar_syntax_error_names_grammar_file_and_line(tmp_path: Path) -> None:
    lines = GRAMMAR.read_text().splitlines()
    lines.insert(40, "assign: postfix \"=\" test )")  # becomes line 41
    broken = tmp_path / "avap.lark"
    broken.write_text("\n".join(lines) + "\n")
    with pytest.raises(GrammarLoadError, match=rf"^{broken}:41:\d+: grammar syntax error"):
        LarkGrammar(broken)


def test_grammar_with_undefined_rule_names_its_line(tmp_path: Path) -> None:
    text = GRAMMAR.read_text()
    broken = tmp_path / "avap.lark"
    broken.write_text(text.replace("expr_stmt: postfix\n", "expr_stmt: postfx\n"))
    expected_line = text.splitlines().index("expr_stmt: postfix") + 1
    with pytest.raises(GrammarLoadError, match=rf"^{broken}:{expected_line}:1: grammar error: .*postfx"):
        LarkGrammar(broken)


def test_grammar_is_lalr_and_unambiguous() -> None:
    g = load_grammar(GRAMMAR)
    assert g.lark.options.parser == "lalr"
    assert g.openers == {"function": "}", "if": "end()", "startLoop": "endLoop()", "try": "end()", "go_async": "end()"}


def test_shipped_grammar_loads_as_lalr() -> None:
    """Whatever a grammar PR changes, the shipped grammar must still build (LALR refuses an ambiguous one) and
    declare blocks; which blocks, and what they close with, is the snapshots' business."""
    g = load_grammar(SHIPPED_GRAMMAR)
    assert g.lark.options.parser == "lalr"
    assert g.openers, "the shipped grammar declares no blocks"


# ---- the golden corpus ------------------------------------------------------------------------------------------

CORPUS_FILES = sorted(CORPUS.glob("*.avap")) if CORPUS.is_dir() else []


@pytest.fixture(scope="module")
def shipped_grammar() -> LarkGrammar:
    return load_grammar(SHIPPED_GRAMMAR)


@pytest.mark.skipif(not CORPUS_FILES, reason="golden/avap/corpus not present")
@pytest.mark.parametrize("path", CORPUS_FILES, ids=[p.name for p in CORPUS_FILES])
def test_every_corpus_file_parses(grammar: LarkGrammar, path: Path) -> None:
    tree = grammar.parse(path.read_text(encoding="utf-8"), path.name).tree
    assert tree.children, f"{path.name} parsed to an empty tree"


@pytest.mark.skipif(not CORPUS_FILES, reason="golden/avap/corpus not present")
@pytest.mark.parametrize("path", CORPUS_FILES, ids=[p.name for p in CORPUS_FILES])
def test_every_corpus_file_parses_with_the_shipped_grammar(shipped_grammar: LarkGrammar, path: Path) -> None:
    """The gate the shipped grammar's header names: a grammar change may move chunks (the snapshots show how) but
    must not stop a corpus file from parsing; the failure names the file, line and column."""
    tree = shipped_grammar.parse(path.read_text(encoding="utf-8"), path.name).tree
    assert tree.children, f"{path.name} parsed to an empty tree"
