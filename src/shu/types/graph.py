"""A graph of what a persona's documents hold: the documents, the people, projects and entities
they name, and the typed, directed links between them (`GET /v1/personas/{p}/graph`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

NodeKind = Literal["document", "person", "project", "entity"]


class GraphNode(BaseModel):
    id: str
    """`document:<doc id>`, `person:<address or name>`, `project:<name>`, `entity:<name>`"""
    kind: NodeKind
    label: str
    doc_id: str | None = None
    """a document's id (what opens it)"""
    type: str | None = None
    """a document's type, an entity's kind"""
    date: str | None = None
    documents: int = 0
    """for a person, project or entity: how many of the graph's documents name it"""


class GraphEdge(BaseModel):
    source: str
    target: str
    kind: str
    """between documents: the relationship's type (`references`, `derived_from`, …); from a
    document to a person: the role they play (`author`, `recipient`, `mentioned`, …); to a project:
    `project`; to an entity: `mentions`"""
    confidence: float | None = None
    origin: str | None = None
    """where a relationship between documents came from (`frontmatter`, `link`, `thread`, `llm`,
    `agent`)"""


class KnowledgeGraph(BaseModel):
    persona: str
    nodes: list[GraphNode] = Field(default_factory=list)
    edges: list[GraphEdge] = Field(default_factory=list)
    documents: int = 0
    """the documents the graph could show (the persona's, or those a filter keeps)"""
    around: str | None = None
    """the document whose one-hop neighbourhood this is"""
    truncated: bool = False
    """more than the limits: the best-connected documents and names are shown"""
