"""The non-LLM methods: a document profile, synthesized questions, chunk profiles and context
prefixes built from the text itself (lead sentences, YAKE keyphrases, rule-based entities,
headings, e-mail headers and frontmatter)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeGuard

from shu.enrich.entities import find_entities, temporal_scope
from shu.enrich.keyphrases import keyphrases
from shu.markdown import Section, split_sections
from shu.text import content_words, split_sentences
from shu.types import (
    AuthorityLevel,
    CapabilityManifest,
    Chunk,
    ChunkProfile,
    Completeness,
    Document,
    DocumentProfile,
    DocumentType,
    Entity,
    Participant,
    ParticipantRole,
    Provenance,
    SynthesizedQuestion,
)

METHOD = "extractive"
_ADDRESS = re.compile(r"^\s*(?P<name>[^<]*?)\s*<(?P<email>[^>]+)>\s*$")
_TYPE_BY_LABEL: dict[str, DocumentType] = {
    "email": "conversational",
    "chat": "conversational",
    "meeting_notes": "narrative",
    "newsletter": "narrative",
    "press": "narrative",
    "blog": "narrative",
    "slide": "narrative",
    "slides": "narrative",
    "faq": "reference",
    "policy": "reference",
    "guide": "technical",
    "spec": "technical",
    "tech_memo": "technical",
    "release_notes": "technical",
}
_AUTHORITY: dict[str, AuthorityLevel] = {
    "policy": "authoritative",
    "spec": "authoritative",
    "guide": "authoritative",
    "faq": "authoritative",
    "release_notes": "authoritative",
    "tech_memo": "informative",
    "meeting_notes": "informative",
    "newsletter": "informative",
    "press": "informative",
    "blog": "informative",
    "email": "informal",
}
_IMPERATIVE = re.compile(
    r"^(configure|set up|setup|create|add|remove|delete|install|upload|connect|enable|disable|"
    r"reset|change|update|raise|request|invite|export|import|troubleshoot|fix|use)\b",
    re.I,
)


@dataclass
class Extracted:
    profile: DocumentProfile
    questions: list[SynthesizedQuestion]


def profile_document(doc: Document, body: str) -> Extracted:
    sections = split_sections(body, root=doc.title)
    prose = "\n\n".join(s.text for s in sections)
    phrases = keyphrases(prose, top=8)
    entities = find_entities(prose) + [Entity(name=p, kind="concept") for p in phrases[:5]]
    participants = _participants(doc)
    profile = DocumentProfile(
        doc_id=doc.id,
        synopsis=lead_sentences(body) or doc.summary or doc.title,
        document_type=_document_type(doc, body),
        entities=entities,
        temporal_scope=temporal_scope(prose, doc.date),
        manifest=CapabilityManifest(
            answers_questions_about=phrases[:6],
            provides_information_type=_information_types(doc, body, entities),
            authority_level=_AUTHORITY.get(doc.type or "", "unknown"),
            completeness=_completeness(prose),
            question_domains=_domains(sections, doc.title),
        ),
        participants=participants,
        projects=[str(p) for p in _as_list(doc.meta.get("projects") or doc.meta.get("project"))],
        provenance=Provenance(method=METHOD),
    )
    return Extracted(profile=profile, questions=template_questions(doc, sections, phrases, profile))


def lead_sentences(markdown: str, max_words: int = 60) -> str:
    """The first sentences of prose (not headings, tables, lists or header fields)."""
    chosen: list[str] = []
    words = 0
    for block in re.split(r"\n\s*\n", markdown):
        block = block.strip()
        if not block or block.startswith(("#", "|", "```", "-", "*", ">", "**From", "**To", "**Cc")):
            continue
        for sentence in split_sentences(block.replace("**", "")):
            count = len(sentence.split())
            if chosen and words + count > max_words:
                return " ".join(chosen)
            chosen.append(sentence)
            words += count
            if words >= max_words // 2:
                return " ".join(chosen)
    return " ".join(chosen)


def template_questions(
    doc: Document, sections: list[Section], phrases: list[str], profile: DocumentProfile, limit: int = 20
) -> list[SynthesizedQuestion]:
    """Questions the document answers, from its headings, keyphrases and facts (5–20)."""
    texts: list[str] = []
    for section in sections:
        heading = section.path.split(" > ")[-1]
        if heading == doc.title or len(heading.split()) > 12:
            continue
        texts.append(_heading_question(heading, doc.title))
    people = {e.name.casefold() for e in profile.entities if e.kind == "person"}
    texts += [f"{'Who' if p.casefold() in people else 'What'} is {p}?" for p in phrases[:4]]
    texts.append(f"What is {doc.title} about?")
    if profile.participants:
        texts.append(f"Who was involved in {doc.title}?")
    if profile.temporal_scope.start:
        texts.append(f"When did the events in {doc.title} happen?")
    if any(e.kind == "amount" for e in profile.entities):
        texts.append(f"How much does it cost according to {doc.title}?")
    texts.append(f"What are the key facts in {doc.title}?")
    unique: dict[str, str] = {}
    for text in texts:
        key = " ".join(content_words(text))
        if key and key not in unique:
            unique[key] = text
    chosen = list(unique.values())[:limit]
    return [
        SynthesizedQuestion(
            id=f"{doc.id}?{index}", doc_id=doc.id, text=text, provenance=Provenance(method=METHOD)
        )
        for index, text in enumerate(chosen)
    ]


def chunk_profile(chunk: Chunk, doc_phrases: list[str]) -> ChunkProfile:
    sentences = [
        s for s in split_sentences(chunk.text.replace("**", "").replace("\n", " ")) if len(s.split()) >= 4
    ]
    summary = " ".join((sentences[0] if sentences else chunk.text).split()[:30])
    lowered = chunk.text.casefold()
    topics = [p for p in doc_phrases if p.casefold() in lowered][:4]
    specifics = [e.name for e in find_entities(chunk.text, limit=12) if e.kind != "concept"]
    keywords = list(dict.fromkeys([*specifics, *topics]))[:10]
    return ChunkProfile(
        chunk_id=chunk.id,
        summary=summary,
        keywords=keywords,
        topics=topics or doc_phrases[:2],
        provenance=Provenance(method=METHOD),
    )


def context_prefix(doc: Document, profile: DocumentProfile, chunk: Chunk, max_words: int = 80) -> str:
    """Where a chunk sits and what its document is (contextual retrieval, no LLM): title,
    type and date, section path, and the document's synopsis."""
    kind = ", ".join(x for x in (doc.type, doc.date) if x)
    head = f"From “{doc.title}”" + (f" ({kind})" if kind else "") + f", section “{chunk.section_path}”."
    words = (head + " " + profile.synopsis).split()
    return " ".join(words[:max_words])


def _heading_question(heading: str, title: str) -> str:
    clean = heading.strip().rstrip(":.")
    if clean.endswith("?"):
        return clean
    if re.match(r"^(how|what|when|where|why|who|which|can|do|does|is|are|should)\b", clean, re.I):
        return clean + "?"
    if _IMPERATIVE.match(clean):
        return f"How do I {clean[0].lower()}{clean[1:]}?"
    return f"What does {title} say about {clean}?"


def _document_type(doc: Document, body: str) -> DocumentType:
    if doc.type in _TYPE_BY_LABEL:
        return _TYPE_BY_LABEL[doc.type]
    lines = [line for line in body.splitlines() if line.strip()]
    table_rows = sum(line.lstrip().startswith("|") for line in lines)
    if lines and table_rows / len(lines) > 0.3 and re.search(r"[$€£]\s?\d", body):
        return "transactional"
    structured = sum(line.lstrip().startswith(("-", "*", "1.", "```")) for line in lines)
    if lines and structured / len(lines) > 0.4:
        return "technical"
    return "narrative" if len(body.split()) > 150 else "other"


def _information_types(doc: Document, body: str, entities: list[Entity]) -> list[str]:
    kinds = {e.kind for e in entities}
    found = []
    if "amount" in kinds:
        found.append("prices, amounts and limits")
    if "date" in kinds:
        found.append("dates and timelines")
    if re.search(r"^\s*(\d+[.)]|step\b)", body, re.I | re.M):
        found.append("step-by-step procedures")
    if "|" in body:
        found.append("tables of facts")
    if re.search(r"\b(decided|approved|voted|agreed|resolution)\b", body, re.I):
        found.append("decisions")
    if doc.type == "email" or "from" in doc.meta:
        found.append("correspondence")
    return found or ["descriptive text"]


def _completeness(prose: str) -> Completeness:
    words = len(prose.split())
    return "complete" if words >= 300 else "partial" if words >= 80 else "fragment"


def _domains(sections: list[Section], title: str) -> list[str]:
    domains: list[str] = []
    for section in sections:
        parts = [p for p in section.path.split(" > ") if p != title]
        if parts and parts[0] not in domains:
            domains.append(parts[0])
    return domains[:8]


_ROLES: tuple[ParticipantRole, ...] = ("author", "recipient", "subject", "mentioned", "decision_maker")


def _participants(doc: Document) -> list[Participant]:
    found: list[Participant] = []
    role: ParticipantRole
    for key, role in (("from", "author"), ("author", "author"), ("to", "recipient"), ("cc", "recipient")):
        for address in _as_list(doc.meta.get(key)):
            for part in str(address).split(","):
                if part.strip():
                    found.append(_participant(part, role))
    for item in _as_list(doc.meta.get("participants")):
        if isinstance(item, dict):  # what a converter read: {name, email, role}
            found += _given_participant(item)
        else:
            found.append(_participant(str(item), "mentioned"))
    unique: dict[str, Participant] = {}
    for participant in found:
        unique.setdefault((participant.email or participant.name).casefold(), participant)
    return list(unique.values())


def _given_participant(item: dict[object, object]) -> list[Participant]:
    name, email, role = (str(item.get(k) or "").strip() for k in ("name", "email", "role"))
    if not name and not email:
        return []
    kept_role = role if _is_role(role) else "mentioned"
    return [Participant(name=name or email, email=email or None, role=kept_role)]


def _is_role(value: str) -> TypeGuard[ParticipantRole]:
    return value in _ROLES


def _participant(text: str, role: ParticipantRole) -> Participant:
    match = _ADDRESS.match(text)
    if match:
        return Participant(name=match["name"].strip('" ') or match["email"], email=match["email"], role=role)
    text = text.strip()
    return Participant(name=text, email=text if "@" in text else None, role=role)


def _as_list(value: object) -> list[object]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]
