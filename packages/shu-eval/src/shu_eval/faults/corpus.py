"""Knowledge bases the fault suite works on: a good one (two personas, Markdown with relations
and links, raw text and HTML to convert, a shared document), and a hostile one (every attack the
suite knows, many variants each, beside good files that must still be indexed)."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from shu_eval.faults import hostile

_TOPICS = [
    ("compost", "Compost heaps are turned every {n} days and need {m} litres of water a week."),
    ("watering", "Plots are watered before {n} am; hoses longer than {m} metres are not allowed."),
    ("pricing", "The Pro plan costs {n} dollars a month and allows {m} requests per minute."),
    ("sso", "Single sign-on needs the audience URI set to urn:shu:{n}; tokens expire after {m} minutes."),
    ("backups", "Backups run at {n}:00 every night and are kept for {m} days."),
    ("seeds", "The seed library lends {n} packets per member and closes after {m} weeks."),
]


Content = bytes | str | Callable[[], bytes | str]
"""A bad file's bytes or text, or what makes them afresh for each file."""
Maker = Callable[[Path], Path | None]
"""Writes a bad file at the path given; returns the path it chose instead, if any."""


def write_persona(root: Path, slug: str, accept_from: list[str] | None = None) -> Path:
    folder = root / slug
    (folder / "RAG").mkdir(parents=True, exist_ok=True)
    (folder / "RAW-DOCS").mkdir(parents=True, exist_ok=True)
    (folder / "persona.md").write_text(f"# {slug.title()}\n\nA persona of the fault suite.\n")
    config: dict[str, object] = {"slug": slug, "display_name": slug.title()}
    if accept_from:
        config["accept_from"] = accept_from
    (folder / "persona.config.json").write_text(json.dumps(config))
    return folder


def markdown(doc_id: str, title: str, body: str, **fields: object) -> str:
    lines = ["---", f"id: {doc_id}", f"title: {title}", *[f"{k}: {json.dumps(v)}" for k, v in fields.items()]]
    return "\n".join([*lines, "---", "", body.strip(), ""])


def good_corpus(root: Path, documents: int = 24, seed: int = 7) -> Path:
    """Two personas (`alpha` accepts documents from `beta`), `documents` documents in all."""
    rng = random.Random(seed)
    folders = {
        "alpha": write_persona(root, "alpha", accept_from=["beta"]),
        "beta": write_persona(root, "beta"),
    }
    for number in range(documents):
        persona = "alpha" if number % 2 == 0 else "beta"
        topic, sentence = _TOPICS[number % len(_TOPICS)]
        facts = " ".join(sentence.format(n=rng.randint(2, 90), m=rng.randint(2, 90)) for _ in range(6))
        body = f"# {topic.title()} {number}\n\n## Rules\n\n{facts}\n\n## Notes\n\n{facts[::-1][:200]}"
        folder = folders[persona]
        if number % 6 == 5:  # raw text, converted to a RAG file by ingestion
            (folder / "RAW-DOCS" / f"{topic}-{number}.txt").write_text(
                f"{topic.title()} {number}\n=====\n\n{facts}\n"
            )
            continue
        if number % 6 == 4:
            head = f"<head><title>{topic} {number}</title></head>"
            html = f"<html>{head}<body><h1>{topic}</h1><p>{facts}</p></body></html>"
            (folder / "RAW-DOCS" / f"{topic}-{number}.html").write_text(html)
            continue
        fields: dict[str, object] = {"date": f"2026-0{1 + number % 9}-1{number % 9}"}
        if number >= 2:
            fields["relations"] = {"references": [f"{persona[0]}-doc-{number - 2}"]}
        if number == 3:
            fields["personas"] = ["beta", "alpha"]  # beta's document shared with alpha, which accepts it
        text = markdown(f"{persona[0]}-doc-{number}", f"{topic.title()} {number}", body, **fields)
        (folder / "RAG" / f"doc-{number}.md").write_text(text)
    return root


@dataclass
class HostileCorpus:
    root: Path
    bad: dict[str, str] = field(default_factory=dict)
    """file path relative to root → the attack it carries"""
    good: list[str] = field(default_factory=list)
    """ids of the good documents that must be indexed"""


def hostile_corpus(root: Path, count: int = 1000, seed: int = 11) -> HostileCorpus:
    """At least `count` bad files, every attack in turn, and one good file in ten beside them."""
    rng = random.Random(seed)
    corpus = HostileCorpus(root)
    folder = write_persona(root, "hostile")
    makers = _makers(rng)
    number = 0
    while len(corpus.bad) < count:
        attack, suffix, where, make = makers[number % len(makers)]
        name = f"{attack}-{number}{suffix}"
        path = folder / where / name
        path = make(path) or path  # a maker may name the file itself
        corpus.bad[path.relative_to(root).as_posix()] = attack
        if number % 10 == 0:
            good_id = f"good-{number}"
            body = f"# Good {number}\n\nThe tool shed opens at {rng.randint(6, 11)} am on day {number}."
            (folder / "RAG" / f"{good_id}.md").write_text(markdown(good_id, f"Good {number}", body))
            corpus.good.append(good_id)
        number += 1
    return corpus


def _makers(rng: random.Random) -> list[tuple[str, str, str, Maker]]:
    def data(content: Content) -> Maker:
        def write(path: Path) -> None:
            payload = content() if callable(content) else content
            if isinstance(payload, bytes):
                path.write_bytes(payload)
            else:
                path.write_text(payload)

        return write

    def random_bytes(size: int, header: bytes = b"") -> Callable[[], bytes]:
        return lambda: header + rng.randbytes(size)

    def loop(path: Path) -> None:
        partner = path.with_name(path.name + ".partner.md")
        os.symlink(partner, path)
        os.symlink(path, partner)

    def outside(path: Path) -> None:
        os.symlink("/etc/passwd", path)

    def huge(path: Path) -> None:
        with path.open("wb") as handle:
            handle.truncate(30_000_000)  # sparse: 30 MB over the 20 MB limit, no disk used

    def broken_yaml() -> str:
        junk = rng.choice(["title: [unclosed", "a: b: c", "- just\n- a list", "key: 'quote", "\t- tab"])
        return f"---\n{junk}\n---\n\nBody text.\n"

    def bad_id() -> str:
        return markdown(
            rng.choice(["UPPER", "../escape", "spa ce", "ü-nicode", "x" * 300]), "Bad id", "Text."
        )

    def bad_persona() -> str:
        return markdown(
            f"bad-persona-{rng.randint(0, 10**9)}", "Bad persona", "Text.", personas=["Not A Slug!"]
        )

    def collide() -> str:
        return markdown("good-0", "Impostor", f"Impostor text {rng.random()}.")

    def fifo(path: Path) -> None:
        os.mkfifo(path)  # opening it would block until a writer comes: it must never be opened

    def non_latin(path: Path) -> Path:
        number = "".join("〇一二三四五六七八九"[int(d)] for d in path.stem.rsplit("-", 1)[1])
        named = path.with_name(f"日本語{number}{path.suffix}")
        named.write_text(f"# 庭\n\n小屋は九時に開きます。{number}\n", encoding="utf-8")
        return named

    def salt() -> str:
        return f"-{rng.randint(0, 10**9)}"

    def bom_bad_byte(suffix: str) -> Callable[[], bytes]:
        return lambda: hostile.with_bom(suffix, True, salt())

    bomb = hostile.zip_bomb_docx(inflated_mb=300)
    book = hostile.epub_many_chapters(chapters=24)
    shared_strings = hostile.xlsx_shared_string_bomb()  # 0.2 s to make: made once, written often
    headings = hostile.many_headings()
    bom_rows = [
        (
            f"bom-bad-byte-{suffix[1:]}",
            suffix,
            "RAW-DOCS",
            data(bom_bad_byte(suffix)),
        )
        for suffix in hostile.TEXT_SUFFIXES
    ]
    return [
        *bom_rows,
        ("bom-eml", ".eml", "RAW-DOCS", data(lambda: hostile.with_bom(".eml", salt=salt()))),
        ("bom-mbox", ".mbox", "RAW-DOCS", data(lambda: hostile.with_bom(".mbox", salt=salt()))),
        ("epub-spine-repeat", ".epub", "RAW-DOCS", data(hostile.epub_spine_repeat(160))),
        ("epub-many-chapters", ".epub", "RAW-DOCS", data(book)),
        ("eml-epub-many-chapters", ".eml", "RAW-DOCS", data(hostile.eml_with_attachment("book.epub", book))),
        ("html-huge-table", ".html", "RAW-DOCS", data(hostile.html_table(rows=30_000))),
        ("mbox-huge", ".mbox", "RAW-DOCS", data(hostile.mbox_many(2_500))),
        ("eml-many-attachments", ".eml", "RAW-DOCS", data(hostile.eml_many_attachments(2_500))),
        ("pptx-slide-repeat", ".pptx", "RAW-DOCS", data(hostile.pptx_slide_repeat(10_000))),
        ("xlsx-shared-string-bomb", ".xlsx", "RAW-DOCS", data(shared_strings)),
        ("csv-wide-header", ".csv", "RAW-DOCS", data(hostile.csv_wide_header())),
        ("ics-long-calendar-name", ".ics", "RAW-DOCS", data(hostile.ics_long_calendar_name())),
        ("pdf-big-page", ".pdf", "RAW-DOCS", data(hostile.pdf_big_pages(1))),
        ("pdf-60-big-pages", ".pdf", "RAW-DOCS", data(hostile.pdf_big_pages(60))),
        ("tiff-g4-huge", ".tiff", "RAW-DOCS", data(hostile.tiff_g4())),
        ("many-headings", ".md", "RAG", data(headings)),
        ("truncated-mbox", ".mbox", "RAW-DOCS", data(hostile.truncated_mbox())),
        (
            "mbox-empty-message",
            ".mbox",
            "RAW-DOCS",
            data(lambda: hostile.mbox_messages(["The shed opens at nine.", "", "Gate code 4411."], salt())),
        ),
        ("pdf-unreadable-tables", ".pdf", "RAW-DOCS", data(hostile.pdf_unreadable_tables())),
        ("fifo", ".md", "RAW-DOCS", fifo),
        ("non-latin-name", ".md", "RAW-DOCS", non_latin),
        ("yaml-alias-bomb", ".md", "RAG", data(lambda: hostile.yaml_alias_bomb(levels=rng.randint(6, 9)))),
        ("yaml-merge-bomb", ".md", "RAG", data(lambda: hostile.yaml_merge_bomb(levels=rng.randint(20, 40)))),
        ("deep-yaml", ".md", "RAG", data(lambda: hostile.deep_yaml(depth=rng.randint(100, 20000)))),
        ("impossible-date", ".md", "RAG", data(hostile.impossible_date())),
        ("broken-yaml", ".md", "RAG", data(broken_yaml)),
        ("unclosed-frontmatter", ".md", "RAG", data("---\ntitle: never closed\nbody\n")),
        ("binary-as-markdown", ".md", "RAG", data(random_bytes(4096, b"\x00\x01"))),
        ("empty-markdown", ".md", "RAG", data(b"")),
        ("frontmatter-only", ".md", "RAG", data("---\ntitle: nothing else\n---\n")),
        ("bad-id", ".md", "RAG", data(bad_id)),
        ("bad-persona-slug", ".md", "RAG", data(bad_persona)),
        ("id-collision", ".md", "RAG", data(collide)),
        ("symlink-loop", ".md", "RAG", loop),
        ("symlink-outside", ".md", "RAG", outside),
        ("too-large", ".md", "RAG", huge),
        ("docx-zip-bomb", ".docx", "RAW-DOCS", data(bomb)),
        ("corrupt-docx", ".docx", "RAW-DOCS", data(random_bytes(2048, b"PK\x03\x04"))),
        ("pptx-zip-bomb", ".pptx", "RAW-DOCS", data(hostile.zip_bomb("ppt/slides/slide1.xml", 300))),
        ("xlsx-zip-bomb", ".xlsx", "RAW-DOCS", data(hostile.zip_bomb("xl/worksheets/sheet1.xml", 300))),
        ("epub-zip-bomb", ".epub", "RAW-DOCS", data(hostile.zip_bomb("OEBPS/chapter1.xhtml", 300))),
        ("corrupt-pptx", ".pptx", "RAW-DOCS", data(random_bytes(2048, b"PK\x03\x04"))),
        ("corrupt-xlsx", ".xlsx", "RAW-DOCS", data(random_bytes(2048, b"PK\x03\x04"))),
        ("corrupt-epub", ".epub", "RAW-DOCS", data(random_bytes(2048, b"PK\x03\x04"))),
        ("encrypted-xlsx", ".xlsx", "RAW-DOCS", data(hostile.encrypted_ooxml())),
        ("eml-without-headers", ".eml", "RAW-DOCS", data(b"no headers here, only words\n")),
        (
            "eml-nested-forwards",
            ".eml",
            "RAW-DOCS",
            data(lambda: hostile.nested_forwards(salt=f"-{rng.randint(0, 10**9)}")),
        ),
        ("mbox-without-messages", ".mbox", "RAW-DOCS", data(b"nothing that starts a message\n")),
        ("fake-msg", ".msg", "RAW-DOCS", data(random_bytes(1024, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"))),
        ("unclosed-calendar", ".ics", "RAW-DOCS", data(b"BEGIN:VCALENDAR\nBEGIN:VEVENT\nSUMMARY:x\n")),
        ("deep-json", ".json", "RAW-DOCS", data(lambda: b"[" * rng.randint(1000, 100000))),
        ("json-not-a-chat", ".json", "RAW-DOCS", data(b'{"debug": true, "port": 8080}')),
        ("png-pixel-bomb", ".png", "RAW-DOCS", data(hostile.png_pixel_bomb())),
        ("jpeg-garbage", ".jpg", "RAW-DOCS", data(random_bytes(2048, b"\xff\xd8\xff"))),
        ("corrupt-pdf", ".pdf", "RAW-DOCS", data(random_bytes(2048, b"%PDF-1.4\n"))),
        (
            "truncated-pdf",
            ".pdf",
            "RAW-DOCS",
            data(lambda: hostile.aes_encrypted_pdf()[: rng.randint(20, 200)]),
        ),
        ("aes-encrypted-pdf", ".pdf", "RAW-DOCS", data(hostile.aes_encrypted_pdf())),
        ("not-a-pdf", ".pdf", "RAW-DOCS", data(b"just text pretending")),
        ("binary-as-text", ".txt", "RAW-DOCS", data(random_bytes(4096, b"\x00"))),
        ("empty-text", ".txt", "RAW-DOCS", data(b"   \n")),
        ("deep-html", ".html", "RAW-DOCS", data(lambda: hostile.deep_html(depth=rng.randint(5000, 30000)))),
        ("script-only-html", ".html", "RAW-DOCS", data(b"<html><script>alert(1)</script></html>")),
        ("unsupported-type", ".exe", "RAW-DOCS", data(random_bytes(512, b"MZ"))),
        (
            "malformed-urls",
            ".urls",
            "RAW-DOCS",
            data("http://[::1/x\nftp://old.example/f\nhttp://127.0.0.1:9/x\n"),
        ),
    ]
