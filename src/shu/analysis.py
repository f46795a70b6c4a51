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
