"""What a word is in Shu. Two notions, each for its own job, and both here:

- **Matching words** (`words`, `content_words`, `stem`, `STOPWORDS`): runs of `\\w` characters in
  lower case, stopwords left out, and a light suffix stripper (pricing/priced/prices/price →
  pric). The reader, the verifier, enrichment and the query rules compare a question with a
  sentence, a heading or a title by them: cheap, predictable, and the same in every process.
  (`shu.text` gives them too, beside sentences and slugs.)
- **Index terms** (`fts_words`, `fts_tokens`, `stem_words`): what SQLite FTS5 makes with
  `porter unicode61 remove_diacritics 2`: runs of letters and digits, lower case, without
  diacritics, Porter-stemmed when 3 to 64 characters long. BM25 ranks by them (the store's
  in-memory keyword index, `store/keyword_index.py`), so its terms and scores are FTS5's.

- **Identifier terms** (`identifier_terms`, `joined_names`, `keyword_text`): what an identifier
  adds to the index terms of the text it is in, so that code, configuration and error codes
  match as a whole and by their parts: `run_target` and `sync.workers` add `runtarget` and
  `syncworkers` (their parts are index terms already), `DiffExecutor` adds `diff` and
  `executor` (the whole is an index term already), `SAML-004` adds `saml004`. Every keyword
  index (FTS5, PostgreSQL's, the in-memory one) indexes `keyword_text` of a chunk; a query adds
  its `joined_names` to its words.

The two differ on purpose: "pricing" is `pric` for matching and `price` as an index term, and an
index term may be a stopword (FTS5 keeps them; BM25's IDF weighs them down) where matching leaves
stopwords out. A chunk's size is counted in yet another unit, `shu.text.count_tokens` (words and
punctuation marks)."""

from __future__ import annotations

import re
import threading
import unicodedata

import Stemmer

# -- matching words -------------------------------------------------------------------------

_WORD = re.compile(r"\w+", re.UNICODE)

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves""".split()
)


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def content_words(text: str) -> list[str]:
    """Lower-cased words without stopwords (all words if nothing else is left)."""
    found = words(text)
    kept = [w for w in found if w not in STOPWORDS]
    return kept or found


def stem(word: str) -> str:
    """A light suffix stripper for overlap tests: pricing/priced/prices/price → pric."""
    for suffix in ("ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


# -- index terms ----------------------------------------------------------------------------

_TOKEN = re.compile(r"[^\W_]+")
_STEMMER = Stemmer.Stemmer("porter")
_STEM_LOCK = threading.Lock()
_STEMS: dict[str, str] = {}


def fts_tokens(text: str) -> list[str]:
    """The tokens SQLite FTS5 makes with `porter unicode61 remove_diacritics 2`: runs of letters
    and digits, lower case, without diacritics, Porter-stemmed when 3 to 64 characters long."""
    words = fts_words(text)
    stems = dict(zip(distinct := list(set(words)), stem_words(distinct), strict=True))
    return [stems[w] for w in words]


def stem_words(words: list[str]) -> list[str]:
    """FTS5's Porter stems of distinct words (words shorter than 3 or longer than 64 kept)."""
    missing = [w for w in words if w not in _STEMS]
    if missing:
        with _STEM_LOCK:  # a PyStemmer object is not thread-safe
            stemmed = _STEMMER.stemWords(missing)
            _STEMS.update((w, s if 3 <= len(w) <= 64 else w) for w, s in zip(missing, stemmed, strict=True))
    return [_STEMS[w] for w in words]


def fts_words(text: str) -> list[str]:
    """The words before stemming: runs of letters and digits, lower case, without diacritics."""
    plain = text.lower()
    if not plain.isascii():
        plain = "".join(c for c in unicodedata.normalize("NFKD", plain) if not unicodedata.combining(c))
    return _TOKEN.findall(plain)


# -- identifier terms ---------------------------------------------------------------------

_CANDIDATE = re.compile(r"[A-Za-z0-9_]+(?:[.\-][A-Za-z0-9_]+)*")
_SEPARATED = re.compile(r"[._\-]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_CAMEL_SEAM = re.compile(r"[a-z0-9][A-Z]|[A-Z][A-Z][a-z]")


def identifier_terms(text: str) -> list[str]:
    """The extra terms identifiers in `text` add to its index terms (lower case, in order): each
    joined name (`joined_names`) and the parts of each camelCase name (`DiffExecutor` → `diff`,
    `executor`; when it has two parts of two characters or more)."""
    found = joined_names(text)
    for candidate in _CANDIDATE.findall(text):
        for part in _SEPARATED.split(candidate):
            found += _camel_parts(part)
    return found


def joined_names(text: str) -> list[str]:
    """Names joined by `_`, `.` or `-` in `text`, each as one term (`run_target` → `runtarget`,
    `a.run_target` → `aruntarget` and `runtarget`); what a query adds to its words. A query's
    camelCase name is not split: naming `DiffExecutor` asks for it whole (an index term already),
    and its parts in a chunk serve questions that describe it in words. A dotted name counts
    when every part starts with a letter and is two characters or more (not "e.g.", "3.14"); a
    hyphenated one when a part has a digit or is upper case (`SAML-004`, not "long-term")."""
    found: list[str] = []
    for candidate in _CANDIDATE.findall(text):
        parts = [p for p in _SEPARATED.split(candidate) if p]
        if len(parts) > 1 and _joined_name(candidate, parts):
            found.append("".join(parts).lower())
        segments = re.split(r"[.\-]+", candidate)
        if len(segments) > 1:
            found += [s.replace("_", "").lower() for s in segments if "_" in s.strip("_")]
    return found


def keyword_text(text: str) -> str:
    """The text a keyword index indexes for `text`: itself, then its identifier terms."""
    extra = identifier_terms(text)
    return f"{text}\n{' '.join(extra)}" if extra else text


def keyword_query(text: str) -> str:
    """The text a keyword search looks for: the query, then its joined names."""
    extra = joined_names(text)
    return f"{text}\n{' '.join(extra)}" if extra else text


def _joined_name(candidate: str, parts: list[str]) -> bool:
    if "_" in candidate.strip("_"):
        return True
    if "." in candidate and all(len(p) >= 2 and p[0].isalpha() for p in parts):
        return True
    return "-" in candidate and any(p.isupper() or any(c.isdigit() for c in p) for p in parts)


def _camel_parts(part: str) -> list[str]:
    if not _CAMEL_SEAM.search(part):
        return []
    pieces = [p.lower() for p in _CAMEL.findall(part) if len(p) >= 2]
    return pieces if len(pieces) >= 2 else []
