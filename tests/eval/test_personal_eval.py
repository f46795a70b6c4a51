"""`shu eval-personal`: the invented organisation is well-formed (every judged document exists,
the ambiguous questions mean different documents to different askers, the users take part in
their documents), and, measured with the real embedder, asking as the user ranks their
documents clearly higher than asking as nobody, while fact questions barely move."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from shu.models.embed.minilm import MiniLMEmbedder
from shu_eval.personal import BOOSTS, PersonalResult, configurations, load, markdown, run
from tests.conftest import CountingEmbedder

DATA = Path(__file__).parent / "data" / "personal"


def frontmatter(path: Path) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), path
    return yaml.safe_load(text.split("---\n", 2)[1])


def test_the_dataset_is_well_formed() -> None:
    data = load(DATA)
    documents = {f["id"]: f for f in map(frontmatter, sorted((data.persona / "RAG").glob("*.md")))}
    assert data.slug == "northwind" and 50 <= len(documents) <= 70
    users = {u["id"]: u for u in data.users}
    assert 4 <= len(users) <= 6
    personal = [q for q in data.queries if q.personal]
    general = [q for q in data.queries if not q.personal]
    assert len(personal) >= 40 and len(general) >= 20
    assert len({q.id for q in data.queries}) == len(data.queries)
    for query in data.queries:
        assert query.user in users, query.id
        assert query.relevant and set(query.relevant) <= set(documents), query.id
        assert max(query.relevant.values()) == 2, query.id
    for query in general:
        assert [g for g in query.relevant.values() if g == 2] == [2], f"{query.id}: one clear document"
    by_text: dict[str, dict[str, frozenset[str]]] = {}
    for query in personal:
        by_text.setdefault(query.text, {})[query.user] = frozenset(query.relevant)
    for text, answers in by_text.items():
        assert len(answers) >= 2, f"{text!r} is asked by one user only"
        assert len(set(answers.values())) == len(answers), f"{text!r}: the same documents for two users"
    for user in users.values():
        emails = set(user["emails"])
        taking_part = [
            d for d in documents.values() if emails & {p["email"] for p in d.get("participants", [])}
        ]
        assert len(taking_part) >= 5, f"{user['id']}: contacts are learned from their documents"
        projects = {d.get("project") for d in taking_part}
        assert user["projects"] and set(user["projects"]) <= projects, user["id"]
        assert set(user.get("stars", [])) <= set(documents)


@pytest.fixture(scope="module")
def measured(minilm: MiniLMEmbedder, tmp_path_factory: pytest.TempPathFactory) -> PersonalResult:
    return run(DATA, embedder=CountingEmbedder(minilm), work=tmp_path_factory.mktemp("personal"))


@pytest.mark.slow
def test_asking_as_the_user_ranks_their_documents_higher(measured: PersonalResult) -> None:
    plain, personal = measured.row("no user"), measured.row("user, all boosts")
    assert [r.name for r in measured.rows] == [name for name, _, _ in configurations()]
    assert measured.documents == 68 and measured.personal_queries == 74 and measured.general_queries == 31
    # measured: 0.502 → 0.818 (Recall@10 0.824 → 0.926); 56 questions better, three worse (two of
    # them the away questions asked by someone who was not away: lena's boosts favour the other
    # meeting)
    assert plain.personal["nDCG@10"] < 0.6
    assert personal.personal["nDCG@10"] >= plain.personal["nDCG@10"] + 0.3
    assert personal.personal["Recall@10"] >= plain.personal["Recall@10"]
    worse = [q for q in measured.personal if personal.per_query[q] < plain.per_query[q] - 1e-9]
    better = [q for q in measured.personal if personal.per_query[q] > plain.per_query[q] + 1e-9]
    assert len(better) >= 45 and len(worse) <= 3, worse
    # measured: 0.934 → 0.912 on the fact questions (two asked by outsiders lose a place; the
    # meetings added for absences compete with two more)
    assert abs(personal.general["nDCG@10"] - plain.general["nDCG@10"]) <= 0.03


@pytest.mark.slow
def test_each_boost_is_measured_on_its_own(measured: PersonalResult) -> None:
    plain = measured.row("no user").personal["nDCG@10"]
    every = measured.row("user, all boosts").personal["nDCG@10"]
    alone = {b: measured.row(f"user, {b} only").personal["nDCG@10"] for b in BOOSTS}
    # measured alone: contact +0.166, project +0.266, own +0.132, role +0.101, interest +0.054,
    # familiar +0.026, fresh and deadline +0.000
    for boost in ("contact", "project", "own", "role"):
        assert alone[boost] >= plain + 0.08, boost
    assert alone["familiar"] >= plain and alone["interest"] >= plain
    assert alone["fresh"] >= plain - 0.01 and alone["deadline"] >= plain - 0.01
    # measured off: contact 0.819, own 0.827, project 0.799, role 0.820 (all below 0.846); fresh off
    # 0.857 (above: this dataset has no question that wants the newer document; see the report)
    for boost in ("contact", "own", "project", "role"):
        assert measured.row(f"user, {boost} = 0").personal["nDCG@10"] < every, boost
    # measured: away alone +0.003 (one question: the meeting held during the asker's vacation goes
    # below the one they attended); with every boost, no change (0.818 either way)
    assert alone["away"] >= plain
    for row in measured.rows:
        assert abs(row.general["nDCG@10"] - measured.row("no user").general["nDCG@10"]) <= 0.03, row.name


@pytest.mark.slow
def test_the_users_contacts_are_learned_and_the_table_printed(measured: PersonalResult) -> None:
    vera = measured.profiles["vera"]
    assert [name for name, _ in vera["contacts"][:2]] == ["John Smith", "Sarah Chen"]
    assert ("Acme Deal", 1.0, "set") in vera["projects"]
    assert all(p["contacts"] for p in measured.profiles.values())
    table = markdown(measured)
    assert "68 documents, 5 users, 74 personal questions, 31 non-personal" in table
    # "no user" nDCG@10 was 0.497 before relative dates were indexed as dates (issue 29 §5)
    assert table.count("\n| user, ") == len(configurations()) - 1 and "| no user | 0.502 |" in table
