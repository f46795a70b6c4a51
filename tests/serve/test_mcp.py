"""`shu mcp` through the official SDK's own client over stdio: the tools, their descriptions,
cited results, and errors for bad input."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from shu.kb import KnowledgeBase
from tests.conftest import PersonaMaker, doc

PRICING = doc("pricing", "Pricing", "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.")
SECRET = doc("secret", "Board secrets", "# Board\n\n## Deal\n\nThe acquisition price is 9 million.")


async def session_calls(home: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], list[Any]]:
    shu = str(Path(sys.executable).with_name("shu"))
    params = StdioServerParameters(command=shu, args=["--home", str(home), "mcp"])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return tools, results


def payload(result: Any) -> Any:
    if result.structured_content is not None:
        found = result.structured_content
        return found.get("result", found) if isinstance(found, dict) else found
    return json.loads(result.content[0].text)


def test_the_sdk_client_lists_the_tools_and_gets_cited_results(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    make_persona("board", rag={"secret.md": SECRET})
    assert not kb.ingest(folder.parent).failed
    home = kb.settings.home
    kb.close()
    calls = [
        ("list_personas", {}),
        ("search", {"question": "Pro plan price", "persona": "lumen", "limit": 2}),
        ("ask", {"question": "What does the Pro plan cost?", "persona": "lumen"}),
        ("read_document", {"doc_id": "pricing", "persona": "lumen"}),
        ("read_document", {"doc_id": "secret", "persona": "lumen"}),
        ("ask", {"question": "What does the Pro plan cost?", "persona": "nobody"}),
        ("search", {"question": "price", "persona": "lumen", "filter": {"doc_ids": ["pricing", "secret"]}}),
        (
            "ask",
            {"question": "What does the Pro plan cost?", "persona": "lumen", "filter": {"types": ["email"]}},
        ),
        ("search", {"question": "price", "persona": "lumen", "filter": {"since": "last May"}}),
        ("graph", {"persona": "lumen"}),
        ("graph", {"persona": "lumen", "around": "secret"}),
    ]
    tools, results = asyncio.run(session_calls(home, calls))
    described = {t.name: t.description or "" for t in tools}
    assert set(described) == {
        "list_personas",
        "search",
        "ask",
        "read_document",
        "generate_context_for_chunk",
        "reindex_with_context",
        "get_reindexing_progress",
        "get_contextual_retrieval_stats",
        "start_conversation",
        "graph",
    }
    assert "citation key" in described["search"] and "[0, 1]" in described["ask"]
    personas, hits, answer, document, walled, unknown, filtered, nothing, bad_filter, graph, no_graph = (
        results
    )
    assert {p["slug"]: p["documents"] for p in payload(personas)} == {"board": 1, "lumen": 1}
    assert payload(hits)[0]["citation"] == "[^pricing:Pricing > Pro]"
    said = payload(answer)
    assert "The Pro plan costs $65 per seat per month. [^pricing:Pricing > Pro]" in said["text"]
    assert said["sources"] and 0.0 <= said["confidence"] <= 1.0
    assert payload(document)["sections"][0]["citation"] == "[^pricing:Pricing > Pro]"
    assert walled.is_error and "no document 'secret' in persona 'lumen'" in walled.content[0].text
    assert unknown.is_error and "unknown persona 'nobody'" in unknown.content[0].text
    assert {h["doc_id"] for h in payload(filtered)} == {"pricing"}  # the other persona's is never kept
    assert payload(nothing)["declined"] and "matches the filter (type email)" in payload(nothing)["text"]
    assert bad_filter.is_error and "since" in bad_filter.content[0].text
    assert [n["doc_id"] for n in payload(graph)["nodes"] if n["kind"] == "document"] == ["pricing"]
    assert no_graph.is_error and "no document 'secret' in persona 'lumen'" in no_graph.content[0].text


async def reindex_until_done(home: Path, folder: Path) -> tuple[list[Any], list[dict[str, Any]]]:
    """Start a reindex job over MCP and follow its progress until it has finished."""
    shu = str(Path(sys.executable).with_name("shu"))
    params = StdioServerParameters(command=shu, args=["--home", str(home), "mcp"])
    body = "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month."
    given = {"chunk": "It costs $65.", "document": body, "title": "Pricing"}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        first = [
            await session.call_tool(name, arguments)
            for name, arguments in [
                ("generate_context_for_chunk", given),
                ("get_contextual_retrieval_stats", {}),
                ("reindex_with_context", {"path": "/no/such/folder"}),
                ("reindex_with_context", {"path": str(folder)}),
            ]
        ]
        seen = [payload(first[-1])]
        for _ in range(300):
            seen.append(payload(await session.call_tool("get_reindexing_progress", {})))
            if seen[-1]["status"] not in ("queued", "running"):
                break
            await asyncio.sleep(0.1)
        first.append(await session.call_tool("get_contextual_retrieval_stats", {}))
    return first, seen


def test_the_contextual_retrieval_tools_of_spec_003(kb: KnowledgeBase, make_persona: PersonaMaker) -> None:
    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    assert not kb.ingest(folder.parent).failed
    home = kb.settings.home
    kb.close()
    (made, before, missing, _, after), seen = asyncio.run(reindex_until_done(home, folder.parent))
    made = payload(made)
    assert made["success"] and made["method"] == "extractive" and "Pricing" in made["context"]
    assert made["contextualized"] == f"{made['context']}\nIt costs $65."
    assert payload(before)["contextualized_chunks"] == 0 and payload(before)["total_chunks"] == 1
    assert missing.is_error and "not a folder" in missing.content[0].text
    assert seen[0]["status"] == "queued" and seen[0]["kind"] == "reindex"
    assert {s["job_id"] for s in seen} == {seen[0]["job_id"]}
    assert seen[-1]["status"] == "done" and seen[-1]["percentage"] == 100.0
    assert seen[-1]["processed"] == seen[-1]["total"] == 1 and seen[-1]["failed"] == 0
    assert payload(after)["contextualized_chunks"] == 1


TEAM = doc("team", "Team plan", "# Team plan\n\n## Price\n\nThe Team plan costs $99 per seat per month.")


async def conversation_turns(home: Path, persona: str, questions: list[str]) -> tuple[Any, list[Any]]:
    shu = str(Path(sys.executable).with_name("shu"))
    params = StdioServerParameters(command=shu, args=["--home", str(home), "mcp"])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        started = payload(await session.call_tool("start_conversation", {"persona": persona}))
        turns = [
            await session.call_tool(
                "ask", {"question": q, "persona": persona, "conversation_id": started["conversation_id"]}
            )
            for q in questions
        ]
    return started, turns


def test_a_conversation_over_mcp_searches_the_follow_up_standing_alone(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    assert not kb.ingest(make_persona("lumen", rag={"pricing.md": PRICING, "team.md": TEAM}).parent).failed
    home = kb.settings.home
    kb.close()
    questions = ["What does the Pro plan cost?", "and the Team plan?"]
    started, (first, follow) = asyncio.run(conversation_turns(home, "lumen", questions))
    assert started["persona"] == "lumen" and started["conversation_id"]
    assert payload(first)["searched_as"] is None and "$65" in payload(first)["text"]
    assert payload(follow)["searched_as"] == "What does the Team plan cost?"
    assert "$99" in payload(follow)["text"]
    bad = {"question": "and the Team plan?", "persona": "lumen", "conversation_id": "nope"}
    _, (unknown,) = asyncio.run(session_calls(home, [("ask", bad)]))
    assert unknown.is_error and "no conversation 'nope'" in unknown.content[0].text
