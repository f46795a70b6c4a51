"""Bytes → str for text formats: UTF-8 first, then a detected legacy encoding; binary is refused."""

from __future__ import annotations

from charset_normalizer import from_bytes

from shu.errors import DocumentError

_PRINTABLE_CONTROL = {9, 10, 12, 13}
# When the detector cannot tell encodings apart, the most widely used one wins.
_PREFERRED = ["cp1252", "latin_1", "iso8859_15", "cp1250", "mac_roman"]
_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def decode_text(data: bytes) -> tuple[str, str]:
    """Return (text, encoding), without NUL and other control characters (a stray NUL past the
    binary sniff must not reach chunk text). Raises DocumentError for binary content."""
    text, encoding = _decode(data)
    return text.translate(_CONTROLS), encoding


_CONTROLS = {code: None for code in range(32) if code not in _PRINTABLE_CONTROL} | {0x7F: None}


def _decode(data: bytes) -> tuple[str, str]:
    if _looks_binary(data):
        raise DocumentError("binary content in a text file (NUL or control bytes)")
    for bom, codec in _BOMS:
        if data.startswith(bom):
            declared = _declared(data[len(bom) :], codec)
            if declared is not None:
                return declared
            data = data[len(bom) :]  # a mark on text of another encoding: detect that one
            break
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    matches = list(from_bytes(data))
    if not matches:
        raise DocumentError("text is not UTF-8 and no other encoding fits it")
    best = matches[0]
    tied = [m for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence)]
    chosen = min(tied, key=lambda m: _PREFERRED.index(m.encoding) if m.encoding in _PREFERRED else 99)
    return str(chosen), chosen.encoding


def _declared(data: bytes, codec: str) -> tuple[str, str] | None:
    """Text in the encoding its byte order mark declares. A few bytes that are not valid there
    (a stray byte pasted in) are replaced, and the encoding says so; when many are, the mark
    lied: None."""
    try:
        return data.decode(codec), f"{codec}-sig" if codec == "utf-8" else codec
    except UnicodeDecodeError:
        pass
    text = data.decode(codec, errors="replace")
    bad = text.count("\ufffd") - data.decode(codec, errors="ignore").count("\ufffd")
    if bad > max(16, len(data) // 1000):
        if codec == "utf-8":
            return None
        raise DocumentError(f"text starts with a {codec.upper()} byte order mark but is not {codec.upper()}")
    return text, f"{codec.upper()}, {bad} invalid byte{'s' if bad > 1 else ''} replaced"


def _looks_binary(data: bytes) -> bool:
    sample = data[:8192]
    if sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False  # UTF-16 text has NUL bytes by design
    if b"\x00" in sample:
        return True
    control = sum(1 for byte in sample if byte < 32 and byte not in _PRINTABLE_CONTROL)
    return control > max(8, len(sample) // 100)
