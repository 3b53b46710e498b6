"""Per-language knowledge, as data: one declarative table per language.

The chunking algorithm never branches on a language name. Everything it needs to know about a grammar lives
here: which file extensions select it, which grammar wheel provides it, which tree-sitter node types are which
*semantic kind*, which nodes merely wrap a declaration (``export``, decorators), which node types are comments
(they travel with the code below them) and where a container's body starts (so its signature can be quoted in
a chunk header). Adding a language is adding one entry; users can pass their own :class:`LanguageSpec`.

Semantic kinds: ``function``, ``method`` (a function inside a class, derived, or declared directly),
``class`` (class/struct/interface/trait/impl: things with members), ``module`` (namespace/module/mod),
``import``, ``export``, ``type`` (aliases, enums, plain structs), ``constant``, ``section`` (Markdown),
``key`` (top-level keys of data files) and ``statement`` (SQL).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

#: Kinds that mark a semantic boundary: with ``chunk_by_node_type`` two of them never share a chunk.
UNIT_KINDS = frozenset({"function", "method", "class", "module", "section"})
#: Kinds whose signature (text before their body) goes into the header of chunks cut from inside them.
CONTAINER_KINDS = frozenset({"class", "module", "section"})
#: Kinds that ``extract_context`` collects.
CONTEXT_KINDS = frozenset({"import", "type", "constant"})

_COMMENTS = frozenset({"comment", "line_comment", "block_comment", "doc_comment", "multiline_comment"})


@dataclass(frozen=True)
class LanguageSpec:
    """Declarative description of one grammar.

    ``kinds`` maps node type -> semantic kind. ``wrappers`` maps a node type to the field (or ``"*"`` for "first
    named child with a kind") that holds the declaration it wraps; the wrapper takes that kind (so an
    ``export function`` is a function). ``when`` restricts a kind to nodes whose ``field`` text is one of a set
    (Ruby's ``require`` is a call), or with field ``"@first"`` whose first named child has one of a set of
    types (a Python ``expression_statement`` is a constant only when it is an assignment). ``body_fields`` name the
    child fields where a container's body starts.
    """

    name: str
    extensions: tuple[str, ...]
    module: str
    function: str = "language"
    kinds: Mapping[str, str] = field(default_factory=dict)
    wrappers: Mapping[str, str] = field(default_factory=dict)
    when: Mapping[str, tuple[str, frozenset[str]]] = field(default_factory=dict)
    comments: frozenset[str] = _COMMENTS
    body_fields: tuple[str, ...] = ("body",)
    isolate: bool = False  # grammar known to hang uncancellably on some input: parse in the watchdog first
    #: grammar known to loop on some malformed input: parse under a deadline (a progress callback that
    #: cancels the parse). Other grammars parse the bytes directly, as fast as a bare ``Parser.parse``: the
    #: Python callback runs thousands of times per MB, a cost a grammar that never loops should not pay.
    hang_prone: bool = False


def _k(**groups: str) -> Mapping[str, str]:
    """Build a type->kind table from ``kind="type1 type2 ..."`` groups (keeps the tables readable)."""
    table: dict[str, str] = {}
    for kind, types in groups.items():
        for t in types.split():
            table[t] = kind
    return MappingProxyType(table)


_JS_KINDS = dict(
    function="function_declaration generator_function_declaration",
    method="method_definition",
    class_="class_declaration",
    import_="import_statement",
    constant="lexical_declaration variable_declaration",
)
_TS_EXTRA = dict(
    class_="class_declaration abstract_class_declaration interface_declaration",
    type="type_alias_declaration enum_declaration",
    module="internal_module module",
    method="method_definition method_signature abstract_method_signature",
)


def _fix(groups: dict[str, str]) -> dict[str, str]:
    """Allow ``class_``/``import_`` as keyword-safe names for the ``class``/``import`` kinds."""
    return {k.rstrip("_"): v for k, v in groups.items()}


_JS = _fix(_JS_KINDS)
_TS = {**_JS, **_fix(_TS_EXTRA)}
_EXPORT = {"export_statement": "declaration"}

LANGUAGES: dict[str, LanguageSpec] = {
    "python": LanguageSpec(
        "python", (".py", ".pyi", ".pyw"), "tree_sitter_python",
        kinds=_k(function="function_definition", **{"class": "class_definition"},
                 **{"import": "import_statement import_from_statement future_import_statement"},
                 constant="expression_statement"),
        wrappers={"decorated_definition": "definition"},
        when={"expression_statement": ("@first", frozenset({"assignment"}))},
    ),
    "javascript": LanguageSpec(
        "javascript", (".js", ".mjs", ".cjs"), "tree_sitter_javascript", kinds=_k(**_JS), wrappers=_EXPORT),
    "jsx": LanguageSpec("jsx", (".jsx",), "tree_sitter_javascript", kinds=_k(**_JS), wrappers=_EXPORT),
    "typescript": LanguageSpec(
        "typescript", (".ts", ".mts", ".cts"), "tree_sitter_typescript", "language_typescript",
        kinds=_k(**_TS), wrappers=_EXPORT),
    "tsx": LanguageSpec("tsx", (".tsx",), "tree_sitter_typescript", "language_tsx", kinds=_k(**_TS), wrappers=_EXPORT,
                        hang_prone=True),  # loops on some malformed input (seen with the property tests' noise)
    "go": LanguageSpec(
        "go", (".go",), "tree_sitter_go",
        kinds=_k(function="function_declaration", method="method_declaration", type="type_declaration",
                 **{"import": "import_declaration package_clause"}, constant="const_declaration var_declaration"),
    ),
    "rust": LanguageSpec(
        "rust", (".rs",), "tree_sitter_rust",
        kinds=_k(function="function_item function_signature_item macro_definition",
                 **{"class": "impl_item trait_item"}, module="mod_item",
                 type="struct_item enum_item union_item type_item",
                 **{"import": "use_declaration extern_crate_declaration"}, constant="const_item static_item"),
    ),
    "java": LanguageSpec(
        "java", (".java",), "tree_sitter_java",
        kinds=_k(method="method_declaration constructor_declaration",
                 **{"class": "class_declaration interface_declaration enum_declaration record_declaration "
                             "annotation_type_declaration"},
                 **{"import": "import_declaration package_declaration"}),
    ),
    "c": LanguageSpec(
        "c", (".c", ".h"), "tree_sitter_c",
        kinds=_k(function="function_definition", type="struct_specifier enum_specifier union_specifier type_definition",
                 **{"import": "preproc_include"}, constant="preproc_def preproc_function_def declaration"),
        body_fields=("body",),
    ),
    "cpp": LanguageSpec(
        "cpp", (".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx", ".c++", ".h++"), "tree_sitter_cpp",
        kinds=_k(function="function_definition", **{"class": "class_specifier struct_specifier"},
                 module="namespace_definition", type="enum_specifier union_specifier type_definition alias_declaration",
                 **{"import": "preproc_include using_declaration"}, constant="preproc_def declaration"),
        wrappers={"template_declaration": "*"},
    ),
    "ruby": LanguageSpec(
        "ruby", (".rb", ".rake", ".gemspec"), "tree_sitter_ruby",
        kinds=_k(method="method singleton_method", **{"class": "class singleton_class"}, module="module",
                 **{"import": "call"}, constant="assignment"),
        when={"call": ("method", frozenset({"require", "require_relative", "load", "include", "extend"})),
              "assignment": ("@first", frozenset({"constant"}))},
    ),
    "php": LanguageSpec(
        "php", (".php", ".phtml"), "tree_sitter_php", "language_php",
        kinds=_k(function="function_definition", method="method_declaration",
                 **{"class": "class_declaration interface_declaration trait_declaration enum_declaration"},
                 module="namespace_definition",
                 **{"import": "namespace_use_declaration include_expression require_expression"},
                 constant="const_declaration"),
    ),
    "swift": LanguageSpec(
        "swift", (".swift",), "tree_sitter_swift",
        kinds=_k(function="function_declaration init_declaration", method="protocol_function_declaration",
                 **{"class": "class_declaration protocol_declaration"}, type="typealias_declaration",
                 **{"import": "import_declaration"}, constant="property_declaration"),
    ),
    "kotlin": LanguageSpec(
        "kotlin", (".kt", ".kts"), "tree_sitter_kotlin",
        kinds=_k(function="function_declaration", **{"class": "class_declaration object_declaration"},
                 type="type_alias", **{"import": "import package_header"}, constant="property_declaration"),
        isolate=True,  # tree-sitter-kotlin 1.1's scanner loops forever on e.g. "val N = 1\n@*@"
        hang_prone=True,
    ),
    "markdown": LanguageSpec(
        "markdown", (".md", ".markdown"), "tree_sitter_markdown",
        kinds=_k(section="section"), comments=frozenset({"html_block"}), body_fields=(),
    ),
    "json": LanguageSpec("json", (".json",), "tree_sitter_json", kinds=_k(key="pair"), comments=frozenset({"comment"})),
    "yaml": LanguageSpec(
        "yaml", (".yaml", ".yml"), "tree_sitter_yaml", kinds=_k(key="block_mapping_pair", section="document")),
    "toml": LanguageSpec(
        "toml", (".toml",), "tree_sitter_toml", kinds=_k(key="pair", section="table table_array_element")),
    "sql": LanguageSpec("sql", (".sql",), "tree_sitter_sql", kinds=_k(statement="statement")),
}


def language_for(path: str, overrides: Mapping[str, str] | None = None) -> LanguageSpec | None:
    """The seed's ``detectLanguage``: pick a language by extension, ``overrides`` (``{".h": "cpp"}``) first.

    An override value may name a language of :data:`LANGUAGES` or be ``None``/``""`` to force the plain-text
    fallback for that extension.
    """
    lower = path.lower()
    if overrides:
        for ext in sorted(overrides, key=len, reverse=True):
            if lower.endswith(ext.lower()):
                name = overrides[ext]
                return LANGUAGES[name] if name else None
    dot = lower.rfind(".")
    if dot < 0:
        return None
    return _BY_EXT.get(lower[dot:])


_BY_EXT: dict[str, LanguageSpec] = {ext: spec for spec in LANGUAGES.values() for ext in spec.extensions}


def supported_extensions() -> tuple[str, ...]:
    """Every extension some language claims, sorted (for ``Strategy.extensions``)."""
    return tuple(sorted(_BY_EXT))
