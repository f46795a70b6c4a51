from shu.enrich.relationships import document_relationships, reply_subject
from shu.types import Document


def make(meta: dict, doc_type: str | None = None) -> Document:
    return Document(
        id="decision-log", title="Decision log", personas=["x"], content_hash="h", type=doc_type, meta=meta
    )


def test_frontmatter_relations_in_both_shapes() -> None:
    listed = make(
        {"relations": [{"type": "decision_for", "target": "Pricing Page"}, {"type": "odd", "target": "faq"}]}
    )
    mapped = make({"relations": {"supersedes": ["old-log", "older-log"]}})
    assert [(r.target, r.type, r.origin, r.confidence) for r in document_relationships(listed, "")] == [
        ("pricing-page", "decision_for", "frontmatter", 1.0),
        ("faq", "related_to", "frontmatter", 1.0),
    ]
    assert [(r.target, r.type) for r in document_relationships(mapped, "")] == [
        ("old-log", "supersedes"),
        ("older-log", "supersedes"),
    ]


def test_links_to_local_documents_are_references() -> None:
    body = (
        "See [pricing](pricing.md), [setup](../RAG/sso-setup.md#okta), ![img](chart.png), "
        "[web](https://example.com/a.md), [self](decision-log.md) and [again](pricing.md)."
    )
    found = document_relationships(make({}), body)
    assert [(r.target, r.type, r.origin) for r in found] == [
        ("pricing", "references", "link"),
        ("sso-setup", "references", "link"),
    ]


def test_links_to_slides_sheets_and_books_are_references_too() -> None:
    body = "The [deck](kickoff.pptx), the [fees](fees.xlsx), the [book](guide.epub) and a [zip](photos.zip)."
    found = document_relationships(make({}), body)
    assert [r.target for r in found] == ["kickoff", "fees", "guide"]


def test_an_email_reply_names_its_parent() -> None:
    reply = make({"in_reply_to": "budget-proposal"}, doc_type="email")
    assert [(r.target, r.type, r.origin) for r in document_relationships(reply, "")] == [
        ("budget-proposal", "replies_to", "thread")
    ]
    assert reply_subject("Re: Budget 2026") == "Budget 2026" and reply_subject("Budget") is None
