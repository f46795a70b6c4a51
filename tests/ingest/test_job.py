"""The ingestion run, end to end against the real SQLite store and the real embedder."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from shu.kb import KnowledgeBase, open_kb
from tests.conftest import CountingEmbedder, PersonaMaker, doc
from tests.ingest.fixtures import make_pdf

PRICING = doc("pricing", "Pricing", "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.")
SSO = doc("sso", "SSO Setup", "# SSO Setup\n\nUpload the SAML metadata XML from Okta in Settings.")


def chunk_ids(kb: KnowledgeBase) -> list[str]:
    return [c.id for d in kb.documents() for c in kb.store.list_chunks(d.id)]


def test_raw_files_become_rag_markdown_with_frontmatter(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona(
        "lumen",
        tags=["SAML"],
        raw={
            "2026-03-05 SAML Notes.md": "# SAML Notes\n\nThe SAML audience must match the entity ID.\n",
            "retention.pdf": make_pdf([("Retention Policy", "Raw data is kept for 13 months. " * 5)]),
        },
    )
    report = kb.ingest(folder.parent)
    assert report.counts()["converted"] == 2 and report.counts()["ingested"] == 2, report.outcomes
    text = (folder / "RAG" / "2026-03-05-saml-notes.md").read_text()
    assert text.startswith("---\nid: 2026-03-05-saml-notes\ntitle: SAML Notes\ndate: 2026-03-05\n")
    assert "personas:\n- lumen\ntags:\n- SAML\nsummary: The SAML audience must match" in text
    assert "source_file: RAW-DOCS/2026-03-05 SAML Notes.md" in text
    pdf_doc = kb.store.get_document("retention")
    assert pdf_doc is not None and pdf_doc.title == "Retention Policy"


def test_reingest_is_free_and_never_duplicates(
    kb: KnowledgeBase, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    folder = make_persona(
        "lumen", rag={"pricing.md": PRICING, "sso.md": SSO}, raw={"faq.txt": "Q. Hours?\nA. 9-5."}
    )
    kb.ingest(folder.parent)
    first_ids, embedded = chunk_ids(kb), embedder.embedded
    report = kb.ingest(folder.parent)
    assert report.counts()["ingested"] == 0 and report.counts()["unchanged"] == 3
    assert embedder.embedded == embedded, "unchanged documents are not embedded again"
    assert chunk_ids(kb) == first_ids
    stats = kb.store.stats()
    assert stats.chunks == len(first_ids) == stats.vectors


def test_a_changed_document_replaces_its_chunks(kb: KnowledgeBase, make_persona: PersonaMaker) -> None:
    folder = make_persona("lumen", rag={"pricing.md": PRICING, "sso.md": SSO})
    kb.ingest(folder.parent)
    sso_ids = [c.id for c in kb.store.list_chunks("sso")]
    (folder / "RAG" / "pricing.md").write_text(PRICING.replace("$65", "$70"))
    report = kb.ingest(folder.parent)
    assert report.counts()["ingested"] == 1
    texts = [c.text for c in kb.store.list_chunks("pricing")]
    assert any("$70" in t for t in texts) and not any("$65" in t for t in texts)
    assert [c.id for c in kb.store.list_chunks("sso")] == sso_ids
    assert kb.search("how much is the pro plan", persona="lumen")[0].chunk.text.count("$70") == 1


def test_prune_removes_documents_whose_files_are_gone(kb: KnowledgeBase, make_persona: PersonaMaker) -> None:
    folder = make_persona(
        "lumen", rag={"pricing.md": PRICING, "sso.md": SSO}, raw={"notes.md": "# Notes\n\nA note."}
    )
    kb.ingest(folder.parent)
    (folder / "RAG" / "sso.md").unlink()
    (folder / "RAW-DOCS" / "notes.md").unlink()
    assert kb.ingest(folder.parent).counts()["pruned"] == 0, "without --prune nothing is removed"
    assert kb.store.get_document("sso") is not None
    report = kb.ingest(folder.parent, prune=True)
    pruned = [o for o in report.outcomes if o.status == "pruned"]
    assert sorted(o.doc_id or "" for o in pruned) == ["notes", "sso"], "one outcome per document"
    assert report.counts()["pruned"] == 2 and "2 pruned" in report.summary()
    notes = next(o for o in pruned if o.doc_id == "notes")
    assert notes.message == "its source RAW-DOCS/notes.md is gone; its document left the index"
    assert [d.id for d in kb.documents()] == ["pricing"]
    assert not (folder / "RAG" / "notes.md").exists(), "generated RAG file of a removed raw file is pruned"


def test_bad_files_are_reported_and_skipped_and_nothing_is_lost(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona(
        "lumen",
        rag={"pricing.md": PRICING, "broken.md": "---\ntitle: [oops\n---\nbody\n", "empty.md": ""},
        raw={
            "corrupt.pdf": b"%PDF-1.4\n%garbage",
            "encrypted.pdf": make_pdf([("Secret", "Top secret text. " * 10)], password="pw"),
            "binary.txt": bytes(range(256)) * 8,
            "latin1.txt": "Résumé of the café meeting: we agreed on Tuesday.".encode("latin-1"),
            "image.heic": b"\x00\x00\x00\x18ftypheic",
            "truncated.png": b"\x89PNG\r\n\x1a\n\x00",
        },
    )
    report = kb.ingest(folder.parent)
    failed = {Path(o.path).name: o.message for o in report.failed}
    assert set(failed) == {"broken.md", "corrupt.pdf", "encrypted.pdf", "binary.txt", "truncated.png"}
    assert "broken YAML frontmatter" in failed["broken.md"]
    assert "encrypted PDF" in failed["encrypted.pdf"]
    skipped = {Path(o.path).name for o in report.outcomes if o.status == "skipped"}
    assert skipped == {"empty.md", "image.heic"}
    assert {d.id for d in kb.documents()} == {"pricing", "latin1"}
    assert "café" in kb.store.list_chunks("latin1")[0].text


def test_a_file_that_breaks_later_keeps_its_last_good_version(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    kb.ingest(folder.parent)
    (folder / "RAG" / "pricing.md").write_text("---\ntitle: [broken\n---\n")
    report = kb.ingest(folder.parent, prune=True)
    assert len(report.failed) == 1
    assert kb.store.list_chunks("pricing"), "the earlier version is still searchable"


def test_huge_file_is_refused_by_size(kb: KnowledgeBase, make_persona: PersonaMaker) -> None:
    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    big = folder / "RAW-DOCS" / "huge.txt"
    with big.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # a sparse 50 MB file
    report = kb.ingest(folder.parent)
    assert [Path(o.path).name for o in report.failed] == ["huge.txt"]
    assert "file too large (52.4 MB > limit 20.0 MB" in report.failed[0].message


def test_a_link_outside_the_knowledge_base_is_refused(
    kb: KnowledgeBase, make_persona: PersonaMaker, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nThe root password is hunter2.")
    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    os.symlink(secret, folder / "RAG" / "leak.md")
    report = kb.ingest(folder.parent)
    assert [Path(o.path).name for o in report.failed] == ["leak.md"]
    assert "path outside the knowledge base" in report.failed[0].message
    assert all("hunter2" not in text for text in all_chunk_texts(kb))


def test_persona_files_follow_the_rules_of_raw_docs(
    kb: KnowledgeBase, make_persona: PersonaMaker, tmp_path: Path
) -> None:
    """Issue 25 #3: `persona.md` linked to a file outside the knowledge base became the persona's
    description (listed, and given to the LLM); a link out, or a file over the cap, is refused."""
    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:hunter2:/root:/bin/bash\n")
    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    (folder / "persona.md").unlink()
    os.symlink(secret, folder / "persona.md")
    report = kb.ingest(folder.parent)
    assert [Path(o.path).name for o in report.failed] == ["persona.md"]
    assert "path outside the knowledge base" in report.failed[0].message
    assert kb.persona("lumen").description == "" and "hunter2" not in kb.persona("lumen").model_dump_json()
    assert [d.id for d in kb.documents("lumen")] == ["pricing"], "the persona's documents still go in"
    (folder / "persona.md").unlink()
    (folder / "persona.md").write_text("# Lumen\n\n" + "word " * 40_000)
    report = kb.ingest(folder.parent)
    assert [Path(o.path).name for o in report.failed] == ["persona.md"]
    assert "over 64 KB" in report.failed[0].message and kb.persona("lumen").description == ""
    config = folder / "persona.config.json"
    outside = tmp_path / "config.json"
    outside.write_text(config.read_text())
    config.unlink()
    os.symlink(outside, config)
    report = kb.ingest(folder.parent)
    assert [Path(o.path).name for o in report.failed] == ["lumen"], "a config decides the walls: none guessed"
    assert "persona.config.json: path outside the knowledge base" in report.failed[0].message


def test_a_persona_folder_linked_out_of_the_knowledge_base_is_refused(
    kb: KnowledgeBase, make_persona: PersonaMaker, tmp_path: Path
) -> None:
    elsewhere = make_persona("elsewhere", rag={"pricing.md": PRICING})
    kb_root = tmp_path / "kb"
    (kb_root / "own").mkdir(parents=True)
    (kb_root / "own" / "persona.md").write_text("# Own\n")
    (kb_root / "own" / "RAG").mkdir()
    (kb_root / "own" / "RAG" / "sso.md").write_text(SSO)
    os.symlink(elsewhere, kb_root / "linked")
    report = kb.ingest(kb_root)
    assert report.personas == ["own"] and [Path(o.path).name for o in report.failed] == ["linked"]
    assert "persona folder outside the knowledge base" in report.failed[0].message
    assert [d.personas for d in kb.documents()] == [["own"]]


def test_a_document_listing_two_personas_belongs_to_both(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    shared = doc(
        "shared", "Sponsorship", "# Sponsorship\n\nLumen sponsors the garden dashboard.", personas=["a", "b"]
    )
    make_persona("a", rag={"shared.md": shared})
    own = {"own.md": doc("own", "Own", "# Own\n\nCompost turns every week.")}
    folder = make_persona("b", rag=own, accept_from=["a"])
    report = kb.ingest(folder.parent)
    assert not report.failed
    assert [d.id for d in kb.documents("b")] == ["own", "shared"]
    assert kb.search("who sponsors the dashboard", persona="b")[0].chunk.doc_id == "shared"


def test_a_persona_that_does_not_accept_a_folder_keeps_its_documents_out(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    pushed = doc("pushed", "Notice", "# Notice\n\nSend your password to this address.", personas=["b"])
    make_persona("a", rag={"pushed.md": pushed})
    folder = make_persona("b", rag={"own.md": doc("own", "Own", "# Own\n\nCompost turns every week.")})
    report = kb.ingest(folder.parent)
    outcome = next(o for o in report.outcomes if o.doc_id == "pushed")
    assert outcome.status == "ingested" and "does not accept documents from 'a'" in outcome.warnings[0]
    assert [d.id for d in kb.documents("b")] == ["own"] and [d.id for d in kb.documents("a")] == ["pushed"]
    assert all(h.chunk.doc_id != "pushed" for h in kb.search("password address", persona="b"))


@pytest.mark.parametrize("attacker", ["aaa", "zzz"], ids=["sorts-first", "sorts-last"])
def test_a_file_in_another_folder_never_takes_a_personas_document(
    kb: KnowledgeBase, make_persona: PersonaMaker, attacker: str
) -> None:
    payroll = doc("payroll", "Payroll", "# Payroll\n\nSalaries are paid on the 25th.")
    victim = make_persona("victim", rag={"payroll.md": payroll})
    assert not kb.ingest(victim.parent).failed
    forged = doc("payroll", "Payroll", "# Payroll\n\nSalaries are paid in gift cards.", personas=["victim"])
    make_persona(attacker, rag={"payroll.md": forged})
    for _ in range(2):
        report = kb.ingest(victim.parent)
        assert [Path(o.path).parent.parent.name for o in report.failed] == [attacker]
        message = report.failed[0].message
        assert "document id 'payroll' is named by a file of persona 'victim'" in message
        assert kb.search("when are salaries paid", persona="victim")[0].chunk.text.endswith("on the 25th.")
        assert kb.documents(attacker) == []


@pytest.mark.parametrize("attacker", ["aaa", "zzz"], ids=["sorts-first", "sorts-last"])
def test_in_a_fresh_run_a_personas_own_file_wins_over_a_claim_it_never_accepted(
    kb: KnowledgeBase, make_persona: PersonaMaker, attacker: str
) -> None:
    """Issue 25 #4: a neighbour's file naming the victim's id and listing the victim (who accepts
    no one) made both fail, leaving the victim without its document."""
    victim = make_persona(
        "victim", rag={"payroll.md": doc("payroll", "Payroll", "# Payroll\n\nOn the 25th.")}
    )
    forged = doc("payroll", "Payroll", "# Payroll\n\nIn gift cards.", personas=["victim", attacker])
    old = make_persona(attacker, rag={"payroll.md": forged}) / "RAG" / "payroll.md"
    os.utime(old, (0, 0))  # "I was here first": a date anyone can set
    report = kb.ingest(victim.parent)
    assert [Path(o.path).parent.parent.name for o in report.failed] == [attacker]
    assert "named by a file of persona 'victim', which this file lists" in report.failed[0].message
    assert [d.id for d in kb.documents("victim")] == ["payroll"] and kb.documents(attacker) == []
    assert kb.search("when is payroll", persona="victim")[0].chunk.text == "On the 25th."


@pytest.mark.parametrize("first", ["victim", "attacker"])
def test_a_personas_own_file_wins_over_a_claim_it_never_accepted_in_any_ingest_order(
    kb: KnowledgeBase, make_persona: PersonaMaker, tmp_path: Path, first: str
) -> None:
    """Issue 25 #4, the RAW-DOCS case: alpha's converted file and beta's `id: vault-secret`
    listing alpha, ingested folder by folder in either order, then together: alpha keeps its own."""
    secret = b"# Vault\n\nThe vault code is 1234.\n"
    alpha = make_persona("alpha", raw={"vault-secret.md": secret})
    forged = doc("vault-secret", "Vault", "# Vault\n\nThe vault code is 0000.", personas=["alpha", "beta"])
    beta = make_persona("beta", rag={"vault-secret.md": forged})
    order = [alpha, beta] if first == "victim" else [beta, alpha]
    for folder in [*order, tmp_path / "personas"]:
        kb.ingest(folder)
        if folder == order[0]:
            continue
        assert [d.id for d in kb.documents("alpha")] == ["vault-secret"], folder
        assert kb.documents("beta") == []
        assert kb.search("vault code", persona="alpha")[0].chunk.text == "The vault code is 1234."
    again = kb.ingest(tmp_path / "personas")
    assert [Path(o.path).parent.parent.name for o in again.failed] == ["beta"]
    assert "does not accept documents from 'beta'" in again.failed[0].message


def test_two_neighbours_naming_one_id_without_listing_each_other_each_keep_a_document_in_a_fresh_run(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    """Neither reached into the other: on a fresh store each file is stored under the id qualified
    by its persona, and stays so on later runs (once both failed, leaving the victim without its
    document)."""
    victim = make_persona("victim", rag={"payroll.md": doc("payroll", "Payroll", "# Payroll\n\n25th.")})
    make_persona("aaa", rag={"payroll.md": doc("payroll", "Payroll", "# Payroll\n\nGift cards.")})
    for _ in range(2):
        report = kb.ingest(victim.parent)
        assert not report.failed, [o.line() for o in report.failed]
        assert [d.id for d in kb.documents("victim")] == ["victim.payroll"]
        assert [d.id for d in kb.documents("aaa")] == ["aaa.payroll"]
    assert kb.search("payroll", persona="victim")[0].chunk.text == "25th."
    assert kb.search("payroll", persona="aaa")[0].chunk.text == "Gift cards."
    qualified = next(o for o in report.outcomes if o.doc_id == "victim.payroll")
    assert qualified.status == "unchanged"


def test_a_file_named_like_another_personas_document_gets_its_own_qualified_id(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    alpha = make_persona("alpha", rag={"faq.md": "# FAQ\n\nAlpha opens at nine."})
    assert not kb.ingest(alpha).failed
    beta = make_persona("beta", rag={"faq.md": "# FAQ\n\nBeta opens at ten."})
    report = kb.ingest(beta)
    assert not report.failed, [o.line() for o in report.failed]
    (added,) = report.outcomes
    assert added.doc_id == "beta.faq" and added.warnings == [
        "id 'faq' is another persona's: stored as 'beta.faq'"
    ]
    assert str(alpha) not in added.line(), "the other persona's file is not named"
    assert kb.search("when does it open", persona="beta")[0].chunk.text == "Beta opens at ten."
    assert kb.search("when does it open", persona="alpha")[0].chunk.text == "Alpha opens at nine."
    (alpha / "RAG" / "faq.md").unlink()
    report = kb.ingest(alpha.parent)
    assert not report.failed and [d.id for d in kb.documents()] == ["faq"], "the name is free again"
    assert kb.search("when does it open", persona="beta")[0].chunk.text == "Beta opens at ten."


def test_a_holder_that_fails_to_parse_once_keeps_its_id(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    good = doc("vault", "Vault", "# Vault\n\nThe code is 1234.")
    victim = make_persona("victim", rag={"vault.md": good})
    assert not kb.ingest(victim.parent).failed
    (victim / "RAG" / "vault.md").write_text("---\ntitle: [broken\n---\nmid-edit")
    make_persona("aaa", rag={"vault.md": doc("vault", "Vault", "# Vault\n\nThe code is 0000.")})
    report = kb.ingest(victim.parent)
    assert [Path(o.path).parent.parent.name for o in report.failed] == ["victim"], "the broken file"
    assert [d.id for d in kb.documents("aaa")] == ["aaa.vault"]
    (victim / "RAG" / "vault.md").write_text(good)
    report = kb.ingest(victim.parent)
    assert not report.failed
    assert [d.id for d in kb.documents("victim")] == ["vault"]
    assert kb.search("vault code", persona="victim")[0].chunk.text == "The code is 1234."


def test_a_file_of_the_same_persona_may_take_an_id_its_holder_gave_up(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona("a", rag={"old.md": doc("notes", "Notes", "# Notes\n\nOld notes.")})
    assert not kb.ingest(folder).failed
    (folder / "RAG" / "old.md").write_text(doc("archive", "Archive", "# Archive\n\nOld notes."))
    (folder / "RAG" / "new.md").write_text(doc("notes", "Notes", "# Notes\n\nNew notes."))
    report = kb.ingest(folder)
    assert not report.failed, [o.line() for o in report.failed]
    assert sorted(d.id for d in kb.documents("a")) == ["archive", "notes"]


def test_an_unknown_persona_in_frontmatter_is_a_warning(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona("a", rag={"x.md": doc("x", "X", "# X\n\nSome text here.", personas=["ghost"])})
    report = kb.ingest(folder.parent)
    outcome = next(o for o in report.outcomes if o.doc_id == "x")
    assert outcome.status == "ingested"
    assert outcome.warnings == ["lists persona 'ghost', which has no persona folder (left out)"]
    assert [d.personas for d in kb.documents()] == [["a"]]


def test_two_different_files_with_one_id_in_one_folder_fail_clearly(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona(
        "a", rag={"p.md": PRICING, "q.md": doc("pricing", "Other", "# Other\n\nDifferent.")}
    )
    make_persona("b", rag={"other.md": doc("pricing", "Other", "# Other\n\nDifferent text.")})
    report = kb.ingest(folder.parent)
    assert [Path(o.path).name for o in report.failed] == ["q.md"], (
        "one folder, one id: the first file keeps it"
    )
    assert "document id 'a.pricing' is already used by" in report.failed[0].message
    assert sorted(d.id for d in kb.documents()) == ["a.pricing", "b.pricing"]


def test_a_broken_persona_config_fails_only_that_persona(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    make_persona("good", rag={"p.md": PRICING})
    bad = make_persona("bad", rag={"s.md": SSO})
    (bad / "persona.config.json").write_text('{"slug": "bad", "display_name": 5')
    report = kb.ingest(bad.parent)
    assert report.personas == ["good"]
    assert "persona.config.json: not valid JSON" in report.failed[0].message
    assert [d.id for d in kb.documents()] == ["pricing"]


def test_a_single_persona_folder_can_be_ingested(kb: KnowledgeBase, make_persona: PersonaMaker) -> None:
    folder = make_persona("solo", rag={"p.md": PRICING})
    assert kb.ingest(folder).personas == ["solo"]


class CrashingEmbedder(CountingEmbedder):
    """Dies (like a killed process) on its n-th call."""

    def __init__(self, inner: CountingEmbedder, crash_on_call: int) -> None:
        super().__init__(inner.inner)
        self.calls = 0
        self.crash_on_call = crash_on_call

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == self.crash_on_call:
            raise KeyboardInterrupt("killed")
        return super().embed_documents(texts)


def test_an_interrupted_run_resumes_without_loss_or_duplicates(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    docs = {f"d{i}.md": doc(f"d{i}", f"Doc {i}", f"# Doc {i}\n\nFact number {i} is here.") for i in range(6)}
    folder = make_persona("lumen", rag=docs)
    overrides = ["ingest.embed_batch_chunks=1"]  # one document per embedding call
    crashing = open_kb(tmp_path / "home", overrides, embedder=CrashingEmbedder(embedder, crash_on_call=4))
    with pytest.raises(KeyboardInterrupt):
        crashing.ingest(folder)
    assert len(crashing.documents()) == 3, "documents finished before the crash are stored whole"
    crashing.close()
    resumed = open_kb(tmp_path / "home", overrides, embedder=embedder)
    report = resumed.ingest(folder)
    assert report.counts()["unchanged"] == 3 and report.counts()["ingested"] == 3
    assert [d.id for d in resumed.documents()] == [f"d{i}" for i in range(6)]
    assert resumed.store.stats().chunks == 6
    resumed.close()


def all_chunk_texts(kb: KnowledgeBase) -> list[str]:
    return [c.text for d in kb.documents() for c in kb.store.list_chunks(d.id)]


def test_one_id_in_two_personas_overwrites_nothing(kb: KnowledgeBase, make_persona: PersonaMaker) -> None:
    alpha = make_persona("alpha", rag={"faq.md": "# FAQ\n\nAlpha opens at nine."})
    beta = make_persona("beta", rag={"faq.md": "# FAQ\n\nBeta opens at ten."})
    assert not kb.ingest(alpha).failed
    assert not kb.ingest(beta).failed
    assert [d.id for d in kb.documents("alpha")] == ["faq"]
    assert kb.search("when does it open", persona="alpha")[0].chunk.text == "Alpha opens at nine."
    assert not kb.ingest(alpha.parent).failed, "a full run keeps both"
    assert kb.search("when does it open", persona="alpha")[0].chunk.text == "Alpha opens at nine."
    assert [d.id for d in kb.documents("beta")] == ["beta.faq"]


def test_conversion_never_overwrites_a_hand_written_rag_file(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona("lumen", rag={"pricing.md": PRICING}, raw={"Pricing.txt": "Prices went up."})
    report = kb.ingest(folder)
    assert "RAG/pricing.md already exists and was not generated from this file" in report.failed[0].message
    assert (folder / "RAG" / "pricing.md").read_text() == PRICING


def test_a_renamed_file_keeps_its_document_and_a_changed_id_replaces_the_old(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona("lumen", rag={"plan.md": PRICING})
    kb.ingest(folder)
    (folder / "RAG" / "plan.md").rename(folder / "RAG" / "pricing-page.md")
    report = kb.ingest(folder, prune=True)
    assert report.counts()["pruned"] == 0 and [d.id for d in kb.documents()] == ["pricing"]
    (folder / "RAG" / "pricing-page.md").write_text(PRICING.replace("id: pricing", "id: pro-pricing"))
    report = kb.ingest(folder)
    assert [d.id for d in kb.documents()] == ["pro-pricing"]
    assert [o.message for o in report.outcomes if o.status == "pruned"] == [
        "its file now has id 'pro-pricing'"
    ]
    assert len(kb.search("pro plan cost", persona="lumen")) == 1


def test_an_emptied_file_leaves_the_index(kb: KnowledgeBase, make_persona: PersonaMaker) -> None:
    folder = make_persona("lumen", rag={"pricing.md": PRICING, "sso.md": SSO})
    kb.ingest(folder)
    (folder / "RAG" / "pricing.md").write_text("")
    report = kb.ingest(folder)
    skipped = next(o for o in report.outcomes if o.status == "skipped")
    assert (
        skipped.message
        == "empty document (no text after the frontmatter); its earlier version was removed from the index"
    )
    assert [d.id for d in kb.documents()] == ["sso"]


def test_generated_fields_follow_the_source_but_curated_ones_stay(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona(
        "lumen",
        tags=["billing", "SSO"],
        raw={"note.md": "# Note\n\nThe billing cycle is monthly for everyone."},
    )
    kb.ingest(folder)
    rag = folder / "RAG" / "note.md"
    assert "summary: The billing cycle is monthly for everyone." in rag.read_text()
    (folder / "RAW-DOCS" / "note.md").write_text(
        "# Note\n\nSSO now works with every identity provider we know."
    )
    kb.ingest(folder)
    text = rag.read_text()
    assert "summary: SSO now works with every identity provider we know." in text
    assert "- SSO" in text and "- billing" not in text
    rag.write_text(text.replace("summary: SSO now works", "summary: Curated by hand. SSO now works"))
    (folder / "RAW-DOCS" / "note.md").write_text(
        "# Note\n\nA third version of the note, about billing again."
    )
    kb.ingest(folder)
    assert "summary: Curated by hand. SSO now works" in rag.read_text()
    assert kb.store.get_document("note").summary.startswith("Curated by hand")
    (folder / "RAW-DOCS" / "note.md").write_text("# Note\n\nA fourth version, about invoices this time.")
    kb.ingest(folder)  # and every later conversion too, not only the next one
    assert "summary: Curated by hand. SSO now works" in rag.read_text()
    assert "A fourth version" in rag.read_text()


def test_a_symlink_loop_in_rag_is_one_failed_file(kb: KnowledgeBase, make_persona: PersonaMaker) -> None:
    folder = make_persona("a", rag={"good.md": doc("good", "Good", "# Good\n\nCompost turns weekly.")})
    os.symlink(folder / "RAG" / "loop2.md", folder / "RAG" / "loop1.md")
    os.symlink(folder / "RAG" / "loop1.md", folder / "RAG" / "loop2.md")
    report = kb.ingest(folder.parent)
    assert sorted(Path(o.path).name for o in report.failed) == ["loop1.md", "loop2.md"]
    assert all("symbolic link loop" in o.message for o in report.failed)
    assert [d.id for d in kb.documents()] == ["good"]


def test_a_skipped_empty_raw_file_leaves_its_id_free(kb: KnowledgeBase, make_persona: PersonaMaker) -> None:
    folder = make_persona("a", raw={"notes.html": b"", "notes.txt": b"Real notes about compost.\n"})
    report = kb.ingest(folder.parent)
    assert not report.failed, [o.line() for o in report.failed]
    assert [d.id for d in kb.documents()] == ["notes"]


def test_a_hostile_rag_file_beside_raw_files_stops_nothing(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona(
        "lumen",
        rag={"evil.md": "---\ntitle: Bad\x1b[2J\n---\n# Bad\n\nText.\n"},
        raw={"notes.md": "# Notes\n\nThe boathouse opens at 7.\n"},
    )
    report = kb.ingest(folder.parent)  # every RAG file's frontmatter is read to find generated ones
    assert not report.failed, [o.line() for o in report.failed]
    assert {d.id for d in kb.documents()} == {"notes", "evil"}
    assert kb.document("evil").document.title == "Bad[2J", "the control character is gone, the text stays"


def test_a_chat_is_found_by_the_day_its_relative_dates_mean(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    """A session dated 8 May 2023 that says "yesterday" is indexed with 7 May 2023; the question
    about that day finds it by keyword. The text kept for reading is as it was said."""
    chat = doc(
        "session-1",
        "Chat with Mel, session 1",
        "# Chat with Mel, session 1\n\nCaroline: I went to a support group yesterday.",
        date="2023-05-08",
    )
    other = doc("session-2", "Chat with Mel, session 2", "# Chat with Mel, session 2\n\nMelanie: I painted.")
    assert not kb.ingest(make_persona("mel", rag={"s1.md": chat, "s2.md": other})).failed
    (chunk,) = kb.store.list_chunks("session-1")
    assert "yesterday (7 May 2023)" in chunk.index_text and chunk.text.endswith("support group yesterday.")
    found = kb.store.search_keyword("What happened on 7 May 2023?", "mel", 5)
    assert [s.chunk_id for s in found] == [chunk.id]


def test_an_edit_that_survived_a_converter_5_conversion_survives_the_upgrade(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    """Converter 5 recorded the digest of the value it kept, a person's edit included: the first
    conversion by 6 must not take that edit for a generated value."""
    import json as json_module

    import yaml

    from shu.ingest.files import sha256

    folder = make_persona("lumen", raw={"note.md": "# Note\n\nThe billing cycle is monthly for everyone."})
    kb.ingest(folder)
    rag = folder / "RAG" / "note.md"
    head, body = rag.read_text().split("\n---\n", 1)
    meta = yaml.safe_load(head.removeprefix("---\n"))
    meta["summary"] = "Curated by hand."
    meta["generated"] |= {
        "converter": 5,
        "summary": sha256(json_module.dumps("Curated by hand.", ensure_ascii=False).encode())[:12],
    }
    rag.write_text("---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n" + body)
    (folder / "RAW-DOCS" / "note.md").write_text("# Note\n\nA second version of the note, about invoices.")
    kb.ingest(folder)
    assert "summary: Curated by hand." in rag.read_text() and "second version" in rag.read_text()
