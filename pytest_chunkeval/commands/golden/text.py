"""Turning a documentation comment or a commit subject into a query, and deciding whether it is worth asking.

A generated suite is only as good as its weakest queries: a sentence that is a bullet list, a signature, the
declaration's own name restated or "Deprecated." tests nothing but lexical luck. Every rejection returns a reason
(a short snake_case word), so the generator can count why candidates were dropped instead of hiding it.

``first_sentence``, ``strip_markup``, ``words_of``, ``name_tokens`` and ``stem`` are shared with
``tools/build_python_suite.py``, whose output must stay byte-identical, so their behaviour is frozen.
"""
from __future__ import annotations

import html
import re

STOPWORDS = set(
    """a an the of to in on for and or is are be by with as at from this that these those it its
    if else then than not no into onto over under all any each every some such which who whom
    whose what when where why how was were been being has have had do does did can could may
    might must shall should will would given new object objects value values return returns
    returned get gets set sets self one two given""".split()  # noqa: SIM905 - a word list reads better as words
)
UNINFORMATIVE = re.compile(
    r"^(internal|private|deprecated|undocumented|obsolete|xxx|todo|fixme|stub|dummy|placeholder|"
    r"see |same as|alias|equivalent to|override|overridden|this method is|"
    r"this function is deprecated|not implemented|for internal use|for backward|"
    r"backward[- ]compat|compatibility|helper|wrapper)"
    r"|internal use|for internal|subclasses (must|should) override|must be overridden|"
    r"not (yet )?implemented|deprecated",
    re.IGNORECASE,
)
ABBREVIATIONS = {"e.g", "i.e", "eg", "ie", "etc", "vs", "cf", "mr", "dr", "st", "no", "approx", "resp", "esp"}
MIN_WORDS = 5
MAX_WORDS = 45


def first_sentence(docstring: str) -> str | None:
    """The docstring's first sentence, markup stripped and whitespace normalized."""
    lines: list[str] = []
    for raw in docstring.strip().splitlines():
        line = raw.strip()
        if not line:
            if lines:
                break  # end of first paragraph
            continue
        if line.startswith((">>>", "...")):
            break
        lines.append(line)
    if not lines:
        return None
    text = " ".join(lines)
    text = strip_markup(text)
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return None
    sentence = text
    for match in re.finditer(r"[.!?](?=\s|$)", text):
        before = text[: match.start()]
        last_word = re.split(r"[\s(]", before)[-1].lower()
        if last_word in ABBREVIATIONS:
            continue  # "e.g." / "i.e." do not end a sentence
        sentence = text[: match.end()]
        break
    sentence = sentence.strip()
    if sentence.endswith(":"):
        sentence = sentence[:-1].rstrip() + "."
    return sentence or None


def strip_markup(text: str) -> str:
    """Remove reST roles, backticks and emphasis markers, keeping the words."""
    text = re.sub(r":[a-zA-Z:]+:`~?!?([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", text)  # :func:`x` / :ref:`t <x>`
    text = re.sub(r"``([^`]*)``", r"\1", text)
    text = re.sub(r"`([^`]*)`_?", r"\1", text)
    text = re.sub(r"(?<![\w*])\*\*?([^*\s][^*]*?)\*\*?(?![\w*])", r"\1", text)
    text = text.replace("`", "")
    return text


#: A URL's pieces are not words a person would type for what the code does ("Taken from https://github.com/...").
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+", re.IGNORECASE)


def words_of(text: str) -> list[str]:
    """The words of ``text``, URLs left out."""
    return re.findall(r"[A-Za-z][A-Za-z0-9']*", _URL.sub(" ", text))


def name_tokens(name: str) -> set[str]:
    parts: list[str] = []
    for piece in re.split(r"[_\W]+", name):
        parts.extend(re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", piece))
    return {stem(p.lower()) for p in parts if p}


def stem(word: str) -> str:
    word = word.lower()
    for suffix in ("ing", "es", "s", "ed"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


# --------------------------------------------------------------------------- doc-comment markup


def strip_doc_markup(text: str) -> str:
    """Javadoc/JSDoc inline tags, C# XML, Markdown links and HTML reduced to their words.

    Applied before :func:`first_sentence`; a paragraph break is what ends the first paragraph, so block-level
    tags (``<p>``, ``<para>``) become blank lines rather than vanishing. Code spans are left as written: in
    ``special tags (`<script>`, `<style>`)`` the tags are the words (fb55/htmlparser2's docs would lose them).
    """
    spans: list[str] = []

    def hold(m: re.Match[str]) -> str:
        spans.append(m.group(0))
        return f"\0{len(spans) - 1}\0"

    text = re.sub(r"`[^`\n]+`", hold, text)
    text = re.sub(r"<(?:see|seealso|paramref|typeparamref)\s+(?:cref|name|langword)"
                  r"\s*=\s*\"(?:[A-Z]:)?([^\"]*)\"\s*/?>(?:</\w+>)?",
                  lambda m: m.group(1).rsplit(".", 1)[-1], text)
    text = re.sub(r"</?(?:p|para|br|ul|ol|li|pre|remarks|example|returns|param[^>]*)\s*/?>", "\n\n", text,
                  flags=re.IGNORECASE)
    text = re.sub(r"\{@(?:code|literal)\s+([^}]*)\}", r"\1", text)
    text = re.sub(r"\{@(?:link|linkplain|see)\s+([^}\s]*)(?:\s+([^}]*))?\}",
                  lambda m: (m.group(2) or m.group(1).replace("#", ".").strip(".")), text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)  # [text](url)
    text = re.sub(r"\[`?([^\]`]+)`?\](?:\[[^\]]*\])?", r"\1", text)  # [`Foo`] / [Foo] / [a][b]
    text = re.sub(r"<[/!]?[a-zA-Z][^<>]*>", "", text)  # remaining tags: <summary>, <c>, <code>, <b>
    text = re.sub("\0(\\d+)\0", lambda m: spans[int(m.group(1))], text)
    return html.unescape(text)


def leading_name_removed(sentence: str, name: str) -> str:
    """Drop the declaration's own name when the sentence starts with it (Go's "Foo returns ...", "The Foo ...").

    What is left is what the code does, which is what a person searching would type; the name alone would let
    identifier matching find the answer without understanding anything.
    """
    if not name:
        return sentence
    short = re.escape(name.rsplit(".", 1)[-1].rsplit("::", 1)[-1])
    pattern = (rf"^(?:(?:the|a|an)\s+)?`?(?:[\w.:*]+[.:])?{short}(?:\(\))?`?"
               r"(?:\s+(?:function|method|type|class|struct|trait|interface|enum))?(?=[\s,])\s*,?\s*")
    rest = re.sub(pattern, "", sentence, count=1, flags=re.IGNORECASE)
    rest = re.sub(r"^(?:is|are)\s+(?=\w)", "", rest) if rest != sentence else rest  # "Client is an HTTP client"
    if rest == sentence or not rest:
        return sentence
    return rest[0].upper() + rest[1:]


def reject_reason(sentence: str, name: str, *, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS,
                  extra_names: tuple[str, ...] = ()) -> str | None:
    """Why ``sentence`` makes a poor query for the declaration ``name``, or None when it is usable."""
    if not sentence or not sentence[0].isalpha():
        return "list_like"  # bullets, numbering, stray punctuation at the start
    if sentence.rstrip().endswith(":") or re.search(
        r":\s+[-*+•] |\s[-*+•]\s.*\s[-*+•]\s|\b1[.)]\s.*\b2[.)]\s", sentence
    ):
        return "list_like"
    if re.search(r"(['\"])\s+\1", sentence):
        return "list_like"  # escape sequences lost in the docstring ("b'\\n'")
    words = words_of(sentence)
    if len(words) < min_words:
        return "too_few_words"
    if len(words) > max_words:
        return "too_many_words"
    if UNINFORMATIVE.search(sentence):
        return "uninformative"
    if (
        "->" in sentence
        or re.match(r"^[\w.:]+\(.*\)", sentence)
        or re.match(r"^(pub |func |fn |def |public |static )", sentence)
    ):
        return "signature_like"
    content = [stem(w) for w in words if len(w) >= 3 and w.lower() not in STOPWORDS]
    if not content:
        return "uninformative"
    own = name_tokens(name) if name else set()
    for extra in extra_names:
        own |= name_tokens(extra)
    novel = [w for w in content if w not in own]
    if len(novel) < 2 or len(novel) / len(content) < 0.4:
        return "mostly_name"
    return None


# --------------------------------------------------------------------------- commit subjects

_CONVENTIONAL = re.compile(r"^(?P<type>[a-zA-Z]+)(?:\((?P<scope>[^)]*)\))?(?P<bang>!)?:\s+")
_ISSUE_PREFIX = re.compile(r"^(?:(?:gh|bpo|issue|bug|closes|fixes|fix|ref)[- ]?#?\d+|#\d+)\s*[:,-]?\s+", re.IGNORECASE)
_COMPONENT = re.compile(r"^(?:\[[^\]]{1,40}\]\s*)+|^[\w./{},*-]{1,40}:\s+(?=\S)")
_TRAILING_REFS = re.compile(r"(?:\s*[\(\[](?:(?:closes|fixes|see|refs?|pr|gh)[- ]?)?#\d+(?:,\s*#\d+)*[\)\]])+\s*$"
                            r"|\s+(?:closes|fixes|see|refs?)?\s*#\d+\s*$", re.IGNORECASE)


def clean_subject(subject: str) -> tuple[str, str | None]:
    """A commit subject without conventional-commit prefix, component prefix or PR/issue numbers.

    Returns the cleaned text and the conventional type (``fix``, ``feat``, ``chore`` ...) when there was one, so
    the caller can drop chores by type rather than by guessing from the words.
    """
    text = " ".join(subject.split())
    kind: str | None = None
    match = _CONVENTIONAL.match(text)
    if match:
        kind = match.group("type").lower()
        text = text[match.end():]
    text = _ISSUE_PREFIX.sub("", text)
    if kind is None:
        text = _COMPONENT.sub("", text, count=1)
    text = _TRAILING_REFS.sub("", text).strip()
    text = re.sub(r"\s*\.+$", "", text).strip()
    if text:
        text = text[0].upper() + text[1:]
    return text, kind


def normalized_words(text: str) -> str:
    """Lower-case alphanumeric words joined by single spaces: the form in which 'verbatim' is judged.

    Comment markers, line breaks and punctuation differ between a query and the file it was cut from, so a
    character-level search would miss the copy that matters.
    """
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))
