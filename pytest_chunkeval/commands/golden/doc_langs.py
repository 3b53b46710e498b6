"""Where each language keeps its documentation comments, as data: one entry per grammar.

The extractor in :mod:`.doc_extract` never branches on a language name. It needs to know which comment nodes
are documentation (``///`` but not ``//`` in Rust, ``/**`` but not ``/*`` in Java), which declarations they may
document, which nodes may sit between the two (Rust attributes) and which nodes merely wrap a declaration
(``export``, Python decorators). Python is the one language whose documentation lives *inside* the declaration
(a docstring), which ``style="docstring"`` selects.
"""
from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass

from pytest_chunkeval.chunking.ast.languages import LANGUAGES, LanguageSpec


@dataclass(frozen=True)
class DocLanguage:
    """Documentation conventions of one grammar.

    ``doc_comment`` matches the text of a comment node that is documentation; ``line_style`` says each node is
    one line and consecutive ones form one comment (``///``, Go's ``//``). ``declarations`` are the node types a
    doc may be attached to; ``wrappers`` map a node type to the field holding what it wraps; ``between`` are
    node types allowed between the comment and the declaration.
    """

    name: str
    spec: LanguageSpec
    declarations: frozenset[str]
    doc_comment: re.Pattern[str] = re.compile(r"^/\*\*(?!\*)")
    line_style: bool = False
    style: str = "comment"  # or "docstring"
    wrappers: tuple[tuple[str, str], ...] = ()
    between: frozenset[str] = frozenset()

    @property
    def installed(self) -> bool:
        return importlib.util.find_spec(self.spec.module) is not None


def _d(types: str) -> frozenset[str]:
    return frozenset(types.split())


_JS_DECLS = _d("function_declaration generator_function_declaration class_declaration method_definition "
               "lexical_declaration variable_declaration")
_TS_DECLS = _JS_DECLS | _d("abstract_class_declaration interface_declaration type_alias_declaration enum_declaration "
                           "method_signature abstract_method_signature public_field_definition property_signature "
                           "function_signature internal_module")
_EXPORT = (("export_statement", "declaration"),)
_CSHARP = LanguageSpec("csharp", (".cs",), "tree_sitter_c_sharp")

DOC_LANGUAGES: dict[str, DocLanguage] = {
    "python": DocLanguage("python", LANGUAGES["python"], _d("function_definition class_definition"),
                          style="docstring", wrappers=(("decorated_definition", "definition"),)),
    "go": DocLanguage("go", LANGUAGES["go"],
                      _d("function_declaration method_declaration type_declaration const_declaration var_declaration"),
                      doc_comment=re.compile(r"^//(?!go:|line |nolint|\s*\+build)"), line_style=True),
    "javascript": DocLanguage("javascript", LANGUAGES["javascript"], _JS_DECLS, wrappers=_EXPORT),
    "jsx": DocLanguage("jsx", LANGUAGES["jsx"], _JS_DECLS, wrappers=_EXPORT),
    "typescript": DocLanguage("typescript", LANGUAGES["typescript"], _TS_DECLS, wrappers=_EXPORT),
    "tsx": DocLanguage("tsx", LANGUAGES["tsx"], _TS_DECLS, wrappers=_EXPORT),
    "rust": DocLanguage("rust", LANGUAGES["rust"],
                        _d("function_item function_signature_item struct_item enum_item union_item trait_item "
                           "type_item const_item static_item mod_item macro_definition"),
                        doc_comment=re.compile(r"^(///(?!/)|/\*\*(?!\*))"), line_style=True,
                        between=_d("attribute_item")),
    "java": DocLanguage("java", LANGUAGES["java"],
                        _d("method_declaration constructor_declaration class_declaration interface_declaration "
                           "enum_declaration record_declaration annotation_type_declaration field_declaration")),
    "kotlin": DocLanguage("kotlin", LANGUAGES["kotlin"],
                          _d("function_declaration class_declaration object_declaration property_declaration")),
    "csharp": DocLanguage("csharp", _CSHARP,
                          _d("method_declaration constructor_declaration class_declaration interface_declaration "
                             "struct_declaration record_declaration enum_declaration property_declaration "
                             "delegate_declaration"),
                          doc_comment=re.compile(r"^///(?!/)"), line_style=True),
    "swift": DocLanguage("swift", LANGUAGES["swift"],
                         _d("function_declaration class_declaration protocol_declaration init_declaration "
                            "protocol_function_declaration"),
                         doc_comment=re.compile(r"^(///(?!/)|/\*\*(?!\*))"), line_style=True),
    "php": DocLanguage("php", LANGUAGES["php"],
                       _d("function_definition method_declaration class_declaration interface_declaration "
                          "trait_declaration")),
    "c": DocLanguage("c", LANGUAGES["c"], _d("function_definition struct_specifier type_definition"),
                     doc_comment=re.compile(r"^(///(?!/)|/\*\*(?!\*))"), line_style=True),
    "cpp": DocLanguage("cpp", LANGUAGES["cpp"],
                       _d("function_definition class_specifier struct_specifier template_declaration"),
                       doc_comment=re.compile(r"^(///(?!/)|/\*\*(?!\*))"), line_style=True),
}

_BY_EXT: dict[str, DocLanguage] = {ext: lang for lang in DOC_LANGUAGES.values() for ext in lang.spec.extensions}

#: Extensions of files that hold code (corpus of ``from-history``): every language the chunkers know or the
#: doc table adds, minus data and prose formats.
CODE_EXTENSIONS: frozenset[str] = frozenset(
    ext for spec in [*LANGUAGES.values(), _CSHARP] if spec.name not in {"markdown", "json", "yaml", "toml"}
    for ext in spec.extensions
)


def doc_language_for(path: str) -> DocLanguage | None:
    dot = path.rfind(".")
    return _BY_EXT.get(path[dot:].lower()) if dot >= 0 else None


def missing_grammars() -> list[str]:
    """Documentation languages whose grammar wheel is not installed (their files are counted, not mined)."""
    return sorted(name for name, lang in DOC_LANGUAGES.items() if not lang.installed)
