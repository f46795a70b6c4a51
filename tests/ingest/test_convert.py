import io
import time
import zipfile
from pathlib import Path

import pytest

from shu.errors import DocumentError, SkipDocument
from shu.ingest.convert import convert_file
from shu_eval.faults.hostile import aes_encrypted_pdf, deep_html, late_nul_text, zip_bomb_docx
from tests.ingest.fixtures import make_docx, make_pdf

LONG = "Raw event data is kept for thirteen months and then aggregated into daily rollups. " * 3


def test_markdown_keeps_body_and_frontmatter() -> None:
    data = b"---\ntitle: Pricing\ndate: 2026-01-05\ntags: [billing]\n---\n# Pricing\n\nPro costs $65.\n"
    converted = convert_file(Path("pricing.md"), data)
    assert converted.title == "Pricing"
    assert converted.meta == {"date": "2026-01-05", "tags": ["billing"]}
    assert converted.markdown.strip() == "# Pricing\n\nPro costs $65."


def test_text_email_headers_become_title_date_and_type() -> None:
    data = (
        b"From: Ana <ana@example.com>\nTo: Bo <bo@example.com>\nDate: Thu, 05 Mar 2026 10:00:00 +0000\n"
        b"Subject: SAML login fails\n\nHi Bo,\n\nThe audience URI was wrong.\n"
    )
    converted = convert_file(Path("mail.txt"), data)
    assert converted.title == "SAML login fails"
    assert converted.meta["type"] == "email"
    assert converted.meta["date"] == "2026-03-05"
    assert converted.meta["from"] == "Ana <ana@example.com>"
    assert converted.markdown.startswith("# SAML login fails")
    assert "The audience URI was wrong." in converted.markdown


def test_text_underlined_headings_become_markdown_headings() -> None:
    converted = convert_file(
        Path("notes.txt"), b"Garden Rules\n============\n\nTools\n-----\n\nReturn tools.\n"
    )
    assert "# Garden Rules" in converted.markdown
    assert "## Tools" in converted.markdown


def test_non_utf8_text_is_decoded_not_lost() -> None:
    data = "Café opening hours: Monday–Friday, 8–17 h. Crème brûlée is served daily.".encode("cp1252")
    converted = convert_file(Path("cafe.txt"), data)
    assert "Café" in converted.markdown and "brûlée" in converted.markdown
    assert converted.warnings and "decoded as" in converted.warnings[0]


def test_html_drops_page_chrome_and_keeps_structure() -> None:
    html = b"""<html><head><title>Plans | Lumen</title><meta name="date" content="2026-04-22">
    <link rel="canonical" href="https://lumen.example/pricing"><script>track()</script></head>
    <body><nav><a href="/">Home</a> Menu</nav><main><h1>Pricing</h1><p>Billed per seat.</p>
    <h2>Plans</h2><table><tr><th>Plan</th><th>Price</th></tr><tr><td>Pro</td><td>$65</td></tr></table>
    </main><footer>Copyright 2026 Lumen</footer></body></html>"""
    converted = convert_file(Path("pricing.html"), html)
    assert converted.title == "Pricing"
    assert converted.meta["date"] == "2026-04-22"
    assert converted.meta["source_url"] == "https://lumen.example/pricing"
    assert "# Pricing" in converted.markdown and "## Plans" in converted.markdown
    assert "| Pro | $65 |" in converted.markdown
    for chrome in ("track()", "Menu", "Copyright"):
        assert chrome not in converted.markdown


def test_pdf_text_with_larger_fonts_as_headings() -> None:
    data = make_pdf(
        [("Retention", LONG), ("Deletion requests", "Requests are handled within 30 days.")], "Policy"
    )
    converted = convert_file(Path("policy.pdf"), data)
    assert converted.title == "Policy"
    assert "# Retention" in converted.markdown
    assert "# Deletion requests" in converted.markdown
    assert "handled within 30 days" in converted.markdown


def test_html_hidden_elements_are_dropped() -> None:
    html = (
        b"<body><h1>Calendar</h1><p>Sow peas in March.</p><div hidden>Sign up now!</div>"
        b'<p style="display: none">Popup</p><span aria-hidden="true">icon</span></body>'
    )
    converted = convert_file(Path("calendar.html"), html)
    assert "Sow peas in March." in converted.markdown
    for hidden in ("Sign up", "Popup", "icon"):
        assert hidden not in converted.markdown


@pytest.mark.parametrize("title_style", [False, True])
def test_docx_headings_and_paragraphs(title_style: bool) -> None:
    sections = [("Shifts", "Shifts last three hours."), ("Safety", "Wear gloves.")]
    data = make_docx("Volunteer Handbook", sections, title_style=title_style)
    converted = convert_file(Path("handbook.docx"), data)
    assert converted.title == "Volunteer Handbook"
    assert "## Shifts" in converted.markdown and "Shifts last three hours." in converted.markdown


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("broken.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage without xref", "corrupt PDF"),
        ("fake.pdf", b"this is not a pdf at all", "not a PDF"),
        ("binary.txt", bytes(range(256)) * 4, "binary content"),
        ("binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10, "binary content"),
        ("broken.docx", b"PK\x03\x04 not really a zip", "not a readable DOCX"),
        ("broken-front.md", b"---\ntitle: [unclosed\n---\n# Body\n", "broken YAML frontmatter at line 2"),
        ("unclosed-front.md", b"---\ntitle: x\n# Body never closes\n", "never closed"),
        ("list-front.md", b"---\n- a\n- b\n---\nbody\n", "must be a YAML mapping"),
    ],
)
def test_bad_files_raise_a_clear_error(name: str, data: bytes, message: str) -> None:
    with pytest.raises(DocumentError, match=message):
        convert_file(Path(name), data)


def test_encrypted_pdf_asks_for_an_unprotected_copy() -> None:
    data = make_pdf([("Secret", LONG)], password="s3cret")
    with pytest.raises(DocumentError, match="encrypted PDF"):
        convert_file(Path("secret.pdf"), data)


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("empty.md", b"", "empty file"),
        ("blank.txt", b"  \n\n ", "empty file"),
        ("photo.heic", b"x", "unsupported"),
    ],
)
def test_empty_and_unsupported_files_are_skipped(name: str, data: bytes, message: str) -> None:
    with pytest.raises(SkipDocument, match=message):
        convert_file(Path(name), data)


def test_a_docx_zip_bomb_is_refused_before_it_inflates() -> None:
    bomb = zip_bomb_docx(inflated_mb=300)
    assert len(bomb) < 2_000_000
    started = time.monotonic()
    with pytest.raises(DocumentError, match=r"'word/document.xml' is 300 MB of text"):
        convert_file(Path("bomb.docx"), bomb)
    assert time.monotonic() - started < 2


def test_a_compressed_member_inflating_too_far_is_a_bomb_whatever_its_name() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/media/image1.png", b"\0" * 50_000_000)
    with pytest.raises(DocumentError, match="zip bomb"):
        convert_file(Path("media.docx"), buffer.getvalue())


def test_nul_bytes_past_the_binary_sniff_never_reach_the_text() -> None:
    converted = convert_file(Path("late.txt"), late_nul_text())
    assert "\x00" not in converted.markdown and "hidden tail." in converted.markdown


def test_deep_html_is_a_named_failure_or_text_never_a_crash() -> None:
    try:
        converted = convert_file(Path("deep.html"), deep_html())
    except RecursionError:
        pytest.fail("deep HTML must not surface as RecursionError")
    except DocumentError as exc:
        assert "nested" in str(exc)
    else:
        assert "deep" in converted.markdown


def test_an_aes_encrypted_pdf_is_reported_as_encrypted() -> None:
    """With `cryptography` installed (the MCP SDK brings it) pypdf tries the empty password and
    fails; without it, pypdf refuses AES outright. Either way: encrypted, needs a password."""
    with pytest.raises(DocumentError, match=r"encrypted PDF( \(AES\))?: it needs a password"):
        convert_file(Path("locked.pdf"), aes_encrypted_pdf())


def test_email_headers_of_any_kind_stay_out_of_the_text() -> None:
    data = (
        b"Message-ID: <1.JavaMail@thyme>\nDate: Fri, 25 Aug 2000 03:30:00 -0700 (PDT)\n"
        b"From: phillip.allen@enron.com\nTo: brad@enron.com,\n\tjohn@enron.com\nSubject: \n"
        b"Mime-Version: 1.0\nX-From: Phillip K Allen\n\nBrad,\n\nPromote Tori.\n"
    )
    converted = convert_file(Path("mail.txt"), data)
    assert converted.meta["to"] == "brad@enron.com, john@enron.com", "continuation lines folded"
    assert "Mime-Version" not in converted.markdown and "X-From" not in converted.markdown
    assert converted.markdown.startswith("**From:** phillip.allen@enron.com"), "no subject: no heading"
    assert "Promote Tori." in converted.markdown


def test_the_names_of_an_exchange_export_stand_beside_the_addresses() -> None:
    data = (
        b"Date: Fri, 25 Aug 2000 03:30:00 -0700 (PDT)\nFrom: gerald.gilbert@enron.com\n"
        b"To: laurel.bolt@enron.com, e-mail <.eric@enron.com>\nSubject: Gas issues\n"
        b"X-From: Gilbert, Gerald </O=ENRON/OU=NA/CN=RECIPIENTS/CN=GGILBERT>\n"
        b"X-To: Bolt, Laurel </O=ENRON/OU=NA/CN=RECIPIENTS/CN=Lbolt>, Eric Bronner (E-mail) "
        b"<ebronner@tecoenergy.com>\nX-cc: \n\nHere is the list.\n"
    )
    converted = convert_file(Path("mail.txt"), data)
    assert "**From:** gerald.gilbert@enron.com (Gilbert, Gerald)" in converted.markdown
    names = "(Bolt, Laurel, Eric Bronner <ebronner@tecoenergy.com>)"
    shown = f"laurel.bolt@enron.com, e-mail <.eric@enron.com> {names}"
    assert f"**To:** {shown}" in converted.markdown
    assert converted.meta["to"] == "laurel.bolt@enron.com, e-mail <.eric@enron.com>", "metadata: the header"
    assert "CN=" not in converted.markdown and "**Cc:**" not in converted.markdown


def test_note_lines_that_look_like_headers_stay_text() -> None:
    data = b"From: Alice\nSubject: Launch plan\nDecision: ship on Friday\nOwner: Bob\n\nDetails follow.\n"
    converted = convert_file(Path("notes.txt"), data)
    assert converted.title == "Launch plan"
    for line in ("Decision: ship on Friday", "Owner: Bob", "Details follow."):
        assert line in converted.markdown


def test_a_ruled_pdf_table_becomes_a_markdown_table_where_it_stands() -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=16)
    pdf.cell(0, 10, "Plot fees 2026", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Fees are due by 1 March. The table lists each kind of plot.")
    with pdf.table() as table:
        for values in [
            ("Plot", "Season fee", "Size"),
            ("Standard plot", "$60", "3 x 6 m"),
            ("Raised | bed", "$35", ""),
        ]:
            row = table.row()
            for value in values:
                row.cell(value)
    pdf.multi_cell(0, 6, "Late fees are $10 a month.")
    converted = convert_file(Path("fees.pdf"), bytes(pdf.output()))
    assert converted.markdown == (
        "# Plot fees 2026\n\nFees are due by 1 March. The table lists each kind of plot.\n\n"
        "| Plot | Season fee | Size |\n|---|---|---|\n| Standard plot | $60 | 3 x 6 m |\n"
        "| Raised \\| bed | $35 |  |\n\nLate fees are $10 a month.\n"
    )
