"""One hop along outgoing relationships (docs/design/query-pipeline.md#one-hop-expansion): filters,
cycles, determinism, identity."""

from __future__ import annotations

from shu.retrieve.expand import plan_candidates
from shu.types import Relationship

EDGES = [
    Relationship(source="a", target="b", type="explains", origin="frontmatter", confidence=1.0),
    Relationship(source="b", target="c", type="references", origin="link", confidence=0.9),
    Relationship(source="b", target="a", type="references", origin="link", confidence=0.9),
    Relationship(source="a", target="d", type="references", origin="link", confidence=0.9),
    Relationship(source="e", target="a", type="supersedes", origin="frontmatter", confidence=1.0),
]


def outgoing(doc_ids: list[str]) -> list[Relationship]:
    return [r for r in EDGES if r.source in doc_ids]


def test_one_hop_only_and_most_confident_first() -> None:
    plan = plan_candidates(["a"], outgoing)
    assert [(e.doc_id, e.via, e.relation) for e in plan.expanded] == [
        ("b", "a", "explains"),
        ("d", "a", "references"),
    ]
    assert "c" not in {e.doc_id for e in plan.expanded}, "b's own relationships are not followed"
    assert plan.max_depth == 1 and plan.seeds == ["a"]


def test_relation_filters() -> None:
    plan = plan_candidates(["a"], outgoing, relation_types=["references"])
    assert [e.doc_id for e in plan.expanded] == ["d"]
    assert plan_candidates(["a"], outgoing, relation_types=["supersedes"]).expanded == []


def test_cycles_add_nothing_twice() -> None:
    plan = plan_candidates(["a", "b"], outgoing)
    assert [(e.doc_id, e.via) for e in plan.expanded] == [("b", "a"), ("d", "a"), ("c", "b")], (
        "b, a lower seed, is reached from a; a is never reached back from b; each document once"
    )
    assert [e.doc_id for e in plan_candidates(["b", "a"], outgoing).expanded] == ["a", "c", "d"]
    assert [e.doc_id for e in plan_candidates(["b"], outgoing).expanded] == ["a", "c"]


def test_incoming_relationships_are_not_followed_and_unknown_targets_dropped() -> None:
    assert [e.doc_id for e in plan_candidates(["a"], outgoing).expanded] == ["b", "d"]  # e → a ignored
    plan = plan_candidates(["a"], outgoing, known=lambda ids: {"d"})
    assert [e.doc_id for e in plan.expanded] == ["d"]
    assert len(plan_candidates(["a"], outgoing, limit=1).expanded) == 1


def test_no_relationships_plan_holds_the_seeds_alone() -> None:
    plan = plan_candidates(["x", "y", "x"], lambda ids: [])
    assert plan.seeds == ["x", "y"] and plan.expanded == []
    assert plan == plan_candidates(["x", "y"], lambda ids: [])
