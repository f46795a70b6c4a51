"""The `shu` command line, driven as a user would, against a real store and embedder."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from shu.kb import open_kb
from shu.serve.cli import app
from shu.types import Finding
from shu_eval.faults.hostile import TERMINAL_ESCAPES
from tests.conftest import CountingEmbedder, PersonaMaker, doc

runner = CliRunner()
PRICING = doc("pricing", "Pricing", "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def shu(home: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--home", str(home), *args])
    return result.exit_code, result.output


def test_ingest_search_ask_round_trip(home: Path, make_persona: PersonaMaker) -> None:
    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    code, output = shu(home, "ingest", str(folder.parent))
    assert code == 0, output
    assert "1 ingested" in output
    code, output = shu(home, "--json", "search", "pro plan price", "--persona", "lumen")
    hits = json.loads(output)
    assert code == 0 and hits[0]["chunk"]["doc_id"] == "pricing"
    assert hits[0]["citation"] == "[^pricing:Pricing > Pro]"
    code, output = shu(home, "ask", "What does the Pro plan cost?", "--persona", "lumen")
    assert code == 0
    assert "The Pro plan costs $65 per seat per month. [^1]" in output
    assert "[^1]: Pricing, §Pricing > Pro — <lumen/RAG/pricing.md#pro>" in output
    code, output = shu(
        home, "--set", "answer.citation_style=keys", "ask", "What does the Pro plan cost?", "-p", "lumen"
    )
    assert "The Pro plan costs $65 per seat per month. [^pricing:Pricing > Pro]" in output
    assert "Sources:\n[^pricing:Pricing > Pro] Pricing, §Pricing > Pro." in output


def test_ask_json_output(home: Path, make_persona: PersonaMaker) -> None:
    shu(home, "ingest", str(make_persona("lumen", rag={"pricing.md": PRICING})))
    code, output = shu(home, "--json", "ask", "Pro plan cost", "-p", "lumen")
    data = json.loads(output)
    assert code == 0 and data["method"] == "extractive"
    assert data["citations"][0]["doc_id"] == "pricing"
    assert data["sources"] == ["[^pricing:Pricing > Pro] Pricing, §Pricing > Pro."]


def test_search_and_ask_keep_to_the_filters_given(home: Path, make_persona: PersonaMaker) -> None:
    mail = doc(
        "mail",
        "Invoice question",
        "# Invoice question\n\nIs the Pro plan price per seat?",
        type="email",
        date="2026-02-10",
        tags=["billing"],
        **{"from": "Sofia Marquez <sofia@acme.example>"},
    )
    shu(home, "ingest", str(make_persona("lumen", rag={"pricing.md": PRICING, "mail.md": mail})))
    code, output = shu(home, "--json", "search", "Pro plan price", "-p", "lumen", "--type", "email,event")
    assert code == 0 and {h["chunk"]["doc_id"] for h in json.loads(output)} == {"mail"}
    code, output = shu(home, "--json", "search", "Pro plan price", "-p", "lumen", "--person", "Sofia Marquez")
    assert {h["chunk"]["doc_id"] for h in json.loads(output)} == {"mail"}
    code, output = shu(
        home,
        "ask",
        "What does the Pro plan cost?",
        "-p",
        "lumen",
        "--tag",
        "billing",
        "--since",
        "2026-02-01",
    )
    assert code == 0 and "filtered: since 2026-02-01; tag billing (1 document(s) kept)" in output
    assert "pricing.md" not in output
    code, output = shu(home, "ask", "What does the Pro plan cost?", "-p", "lumen", "--doc", "nothing-here")
    assert code == 0 and "matches the filter (document nothing-here)" in output
    code, output = shu(home, "search", "pro", "-p", "lumen", "--since", "2026-05-01", "--until", "2026-04-01")
    assert code == 2 and "is after until" in output
    code, output = shu(home, "search", "pro", "-p", "lumen", "--since", "May")
    assert code == 2 and "--since" in output


def test_failures_exit_non_zero_with_a_summary(home: Path, make_persona: PersonaMaker) -> None:
    folder = make_persona("lumen", rag={"pricing.md": PRICING, "bad.md": "---\ntitle: [x\n---\nbody"})
    code, output = shu(home, "ingest", str(folder))
    assert code == 1
    assert "failed" in output and "bad.md: broken YAML frontmatter at line 2" in output
    assert "1 ingested, 1 failed" in output
    code, output = shu(home, "ingest", str(folder))
    assert code == 1 and "1 unchanged, 1 failed" in output


def test_unknown_persona_is_a_one_line_error(home: Path, make_persona: PersonaMaker) -> None:
    shu(home, "ingest", str(make_persona("lumen", rag={"pricing.md": PRICING})))
    result = runner.invoke(app, ["--home", str(home), "ask", "hi", "--persona", "nope"])
    assert result.exit_code == 2
    assert result.output.strip() == "error: unknown persona 'nope' (known: lumen)"
    as_json = runner.invoke(app, ["--home", str(home), "--json", "ask", "hi", "--persona", "nope"])
    assert as_json.exit_code == 2
    assert json.loads(as_json.stdout) == {"error": "unknown persona 'nope' (known: lumen)", "exit_code": 2}


def test_version_is_printed_without_a_knowledge_base(tmp_path: Path) -> None:
    from shu import __version__

    result = runner.invoke(app, ["--home", str(tmp_path / "none"), "--version"])
    assert result.exit_code == 0 and result.stdout == f"shu {__version__}\n"
    assert not (tmp_path / "none").exists(), "nothing is created to say the version"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ingest", "/definitely/not/here"], "not a folder"),
        (["--set", "chunking.max_tokens=-5", "stats"], "chunking.max_tokens"),
        (["search", "", "--persona", "x"], "unknown persona"),
    ],
)
def test_invalid_requests_are_clear_errors(home: Path, args: list[str], message: str) -> None:
    code, output = shu(home, *args)
    assert code == 2 and message in output


def test_a_folder_without_personas(home: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, output = shu(home, "ingest", str(tmp_path / "empty"))
    assert code == 2 and "no persona folders found" in output


def test_personas_docs_and_stats(home: Path, make_persona: PersonaMaker) -> None:
    shu(home, "ingest", str(make_persona("lumen", tags=["billing"], rag={"pricing.md": PRICING})))
    assert json.loads(shu(home, "--json", "personas")[1])[0]["documents"] == 1
    assert json.loads(shu(home, "--json", "docs", "-p", "lumen")[1])[0]["id"] == "pricing"
    stats = json.loads(shu(home, "--json", "stats")[1])
    assert stats["chunks"] == stats["vectors"] == 1


def test_the_installed_command_runs(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "shu.serve.cli", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and "ingest" in result.stdout and "ask" in result.stdout


def test_brackets_in_document_text_are_printed_not_parsed(home: Path, make_persona: PersonaMaker) -> None:
    body = "# Paths [/etc]\n\n## Usage [red]\n\nConfiguration lives in [/opt/app] on every host."
    folder = make_persona("ops", rag={"paths.md": doc("paths", "Paths [/etc]", body)})
    assert shu(home, "ingest", str(folder))[0] == 0
    code, output = shu(home, "docs", "--persona", "ops")
    assert code == 0 and "Paths [/etc]" in output
    code, output = shu(home, "search", "configuration host", "--persona", "ops")
    assert code == 0 and "[red]" in output
    code, output = shu(home, "ask", "Where does configuration live?", "--persona", "ops")
    assert (
        code == 0
        and "[^1]: Paths [/etc], §Paths [/etc] > Usage [red] — <ops/RAG/paths.md#usage-red>" in output
    )


def test_enrich_and_reindex_commands(home: Path, make_persona: PersonaMaker) -> None:
    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    assert shu(home, "ingest", str(folder))[0] == 0
    code, output = shu(home, "--json", "enrich", str(folder))
    assert code == 0 and json.loads(output)["outcomes"][0]["status"] == "unchanged"
    code, output = shu(home, "--json", "enrich", str(folder), "--force")
    assert code == 0 and json.loads(output)["outcomes"][0]["status"] == "ingested"
    code, output = shu(home, "--json", "reindex", str(folder), "--context")
    assert code == 0 and json.loads(output)["outcomes"][0]["status"] == "ingested"
    stats = json.loads(shu(home, "--json", "stats")[1])
    assert stats["enrichment"]["context_prefixes"]["chunks with"] == stats["chunks"]


def test_reindex_embedder_switches_the_embedder_the_store_keeps(
    home: Path, make_persona: PersonaMaker
) -> None:
    """MiniLM's float32 and int8 vectors are two embedders: the store keeps the first until
    `reindex --embedder` embeds every document again with the configured one."""
    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    int8 = ("--set", "embedder.quantized=true")
    assert shu(home, "ingest", str(folder))[0] == 0
    code, output = shu(home, *int8, "--json", "ingest", str(folder))
    assert code == 0 and "minilm-l6-v2-onnx; the settings name minilm-l6-v2-onnx-int8" in output
    assert json.loads(shu(home, *int8, "--json", "stats")[1])["embedder"] == "minilm-l6-v2-onnx"
    code, output = shu(home, *int8, "--json", "reindex", str(folder), "--embedder")
    assert code == 0 and json.loads(output)["outcomes"][0]["status"] == "ingested"
    assert json.loads(shu(home, *int8, "--json", "stats")[1])["embedder"] == "minilm-l6-v2-onnx-int8"
    code, output = shu(home, *int8, "--json", "search", "pro plan price", "--persona", "lumen")
    assert code == 0 and "pricing" in output


def test_terminal_escapes_in_documents_and_file_names_are_never_printed(
    home: Path, make_persona: PersonaMaker
) -> None:
    evil = doc(
        "evil",
        f"Pricing{TERMINAL_ESCAPES}",
        f"# Pricing\n\n## Pro\n\nThe Pro plan costs $65.{TERMINAL_ESCAPES}",
    )
    folder = make_persona(
        "lumen", rag={"evil.md": evil, f"bad{TERMINAL_ESCAPES}.md": "---\ntitle: [x\n---\nb"}
    )
    outputs = [
        shu(home, "ingest", str(folder.parent))[1],
        shu(home, "docs", "-p", "lumen")[1],
        shu(home, "search", "pro plan price", "-p", "lumen")[1],
        shu(home, "ask", "What does the Pro plan cost?", "-p", "lumen")[1],
        shu(home, "--json", "docs", "-p", "lumen")[1],
    ]
    for output in outputs:
        assert "\x1b" not in output and "\x07" not in output, output
    assert "The Pro plan costs $65.[2J]0;pwned[31m" in outputs[3], "the text stays, its controls go"
    assert "bad[2J]0;pwned[31m.md: broken YAML" in outputs[0], "file names are cleaned when printed"


@pytest.mark.parametrize("value", ["Infinity", "1e999", "NaN", "-Infinity"])
def test_non_finite_numbers_in_settings_are_refused(home: Path, value: str) -> None:
    code, output = shu(home, "--set", f"ingest.max_file_mb={value}", "stats")
    assert code == 2 and "invalid settings: ingest.max_file_mb" in output, output


def test_a_broken_home_or_config_is_one_clear_line(tmp_path: Path) -> None:
    a_file = tmp_path / "home-file"
    a_file.write_text("not a folder")
    code, output = shu(a_file, "stats")
    assert code == 2 and "must be a folder" in output and "Traceback" not in output
    deep = tmp_path / "deep"
    deep.mkdir()
    (deep / "config.json").write_text("[" * 100_000 + "]" * 100_000)
    code, output = shu(deep, "stats")
    assert code == 2 and "nested too deeply" in output
    folder_config = tmp_path / "dir-config"
    (folder_config / "config.json").mkdir(parents=True)
    code, output = shu(folder_config, "stats")
    assert code == 2 and "not a folder" in output


def test_a_persona_listing_shows_file_names_and_only_that_persona(
    home: Path, make_persona: PersonaMaker
) -> None:
    shared = doc("shared", "Shared", "# Shared\n\nBoth see this.", personas=["b"])
    make_persona("a", rag={"shared.md": shared})
    make_persona("b", rag={"own.md": doc("own", "Own", "# Own\n\nOnly b.")}, accept_from=["a"])
    shu(home, "ingest", str(home.parent / "personas"))
    listed = json.loads(shu(home, "--json", "docs", "-p", "b")[1])
    assert [(d["id"], d["personas"], d["file"]) for d in listed] == [
        ("own", ["b"], "own.md"),
        ("shared", ["b"], "shared.md"),
    ]
    assert all(str(home.parent) not in json.dumps(d) for d in listed), "no absolute paths"


def test_ask_streams_a_generated_answer_from_an_openai_compatible_server(
    home: Path, make_persona: PersonaMaker
) -> None:
    """`shu ask` with an LLM configured: the reply arrives as server-sent events, keys become
    footnote numbers as they stream, a key the context did not contain never shows."""
    from tests.models.fake_llm_server import Script, openai_stream, serve

    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    assert shu(home, "ingest", str(folder.parent))[0] == 0
    pieces = [
        "The Pro plan costs $65 ",
        "per seat [^pric",
        "ing:Pricing > Pro]. It is [^fake:",
        "Doc] cheap.",
    ]
    script = Script(replies=[openai_stream(pieces)])
    with serve(script) as url:
        settings = ["--set", "llm.provider=openai", "--set", f"llm.base_url={url}", "--set", "llm.model=m"]
        settings += ["--set", "answer.scope=false", "--set", "enrich.enabled=false"]
        settings += ["--set", "retrieval.plan=false", "--set", "retrieval.hyde=false"]
        settings += ["--set", "verify.method=rules"]
        code, output = shu(home, *settings, "ask", "What does the Pro plan cost?", "-p", "lumen")
    assert code == 0, output
    assert "The Pro plan costs $65 per seat [^1]. It is cheap." in output
    assert "[^1]: Pricing, §Pricing > Pro — <lumen/RAG/pricing.md#pro>" in output
    assert "fake" not in output and "1 citation(s) the context did not contain were removed" in output
    sent = script.requests[-1]
    assert sent["stream"] is True and "What does the Pro plan cost?" in sent["messages"][-1]["content"]


@pytest.mark.slow
def test_eval_verify_measures_the_planted_errors(home: Path) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "personas"
    code, output = shu(home, "eval-verify", "--examples", str(examples))
    assert code == 0, output
    rows = {
        line.split("|")[1].strip(): line.split("|")[2].strip() for line in output.splitlines() if "|" in line
    }
    assert float(rows["recall"]) > 0.8 and float(rows["precision"]) > 0.8, output
    assert rows["flagged: wrong_document"] == "20/20"


SSO = doc("sso", "SSO", "# SSO\n\nSAML single sign-on works with Okta on the Pro plan.")


def _found_by_the_agent(home: Path, embedder: CountingEmbedder) -> list[Finding]:
    """Three findings as the agent writes them back: two of persona lumen, one of ops."""
    kb = open_kb(home, embedder=embedder)
    try:
        return [
            kb.store.add_finding(finding)
            for finding in (
                Finding(
                    kind="relationship",
                    doc_id="pricing",
                    persona="lumen",
                    target="sso",
                    value="references",
                    evidence="The Pro plan costs $65 per seat per month, " * 3,
                    question="Which plan includes SSO and what does it cost?",
                ),
                Finding(kind="stale_manifest", doc_id="sso", persona="lumen", value="Azure AD setup"),
                Finding(kind="document_type", doc_id="sso", persona="ops", value="reference"),
            )
        ]
    finally:
        kb.close()


def test_findings_are_listed_per_persona_and_counted_in_stats(
    home: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    make_persona("lumen", rag={"pricing.md": PRICING, "sso.md": SSO})
    make_persona("ops", rag={"own.md": doc("own", "Own", "# Own\n\nOnly ops.")})
    assert shu(home, "ingest", str(home.parent / "personas"))[0] == 0
    assert shu(home, "findings") == (0, "No agent findings.\n")
    relationship, stale, typed = _found_by_the_agent(home, embedder)
    code, output = shu(home, "--json", "findings", "--persona", "lumen")
    listed = json.loads(output)
    assert code == 0 and [f["id"] for f in listed] == [stale.id, relationship.id], "newest first"
    assert listed[1]["question"] == relationship.question and listed[1]["target"] == "sso"
    assert [f["id"] for f in json.loads(shu(home, "--json", "findings", "-p", "ops")[1])] == [typed.id]
    assert len(json.loads(shu(home, "--json", "findings")[1])) == 3
    code, output = shu(home, "findings", "-p", "lumen")
    assert code == 0 and "pricing" in output and "Azure AD" in output and "ops" not in output
    assert relationship.evidence.strip() not in " ".join(output.split()), "evidence is cut"
    code, output = shu(home, "findings", "-p", "nope")
    assert code == 2 and "unknown persona 'nope'" in output
    code, output = shu(home, "stats")
    assert code == 0
    assert (
        "agent findings: 3 active (1 relationships, 1 stale manifests, 1 document types, 0 people, "
        "0 projects), 0 undone" in output
    )
    counts = json.loads(shu(home, "--json", "stats")[1])["findings"]
    assert counts == {
        "active": 3,
        "relationships": 1,
        "stale_manifests": 1,
        "document_types": 1,
        "participants": 0,
        "projects": 0,
        "undone": 0,
    }


def test_a_finding_is_undone_from_the_command_line(
    home: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    assert shu(home, "ingest", str(make_persona("lumen", rag={"pricing.md": PRICING, "sso.md": SSO})))[0] == 0
    relationship, stale, typed = _found_by_the_agent(home, embedder)
    code, output = shu(home, "findings", "undo", str(relationship.id))
    assert code == 0 and f"undone: finding {relationship.id} (relationship of pricing)" in output
    code, output = shu(home, "findings", "undo", str(relationship.id))
    assert code == 1 and "already undone" in output
    code, output = shu(home, "findings", "undo", "999")
    assert code == 1 and "unknown finding 999" in output
    code, output = shu(home, "--json", "findings", "undo", str(stale.id))
    assert code == 0 and json.loads(output)["undone"] is True
    active = json.loads(shu(home, "--json", "findings")[1])
    assert [f["id"] for f in active] == [typed.id]
    everything = json.loads(shu(home, "--json", "findings", "--all")[1])
    assert {f["id"]: f["undone"] for f in everything} == {
        typed.id: False,
        stale.id: True,
        relationship.id: True,
    }
    assert "(undone)" in shu(home, "findings", "--all")[1]
    code, output = shu(home, "stats")
    assert (
        "agent findings: 1 active (0 relationships, 0 stale manifests, 1 document types, 0 people, "
        "0 projects), 2 undone" in output
    )
    kb = open_kb(home, embedder=embedder)
    try:
        assert all(r.origin != "agent" for r in kb.store.list_relationships(["pricing"]))
    finally:
        kb.close()


def test_ask_with_the_agent_prints_its_steps_and_the_json_carries_the_trace(
    home: Path, make_persona: PersonaMaker
) -> None:
    team = doc("team", "Team plan", "# Team plan\n\n## Price\n\nThe Team plan costs $35 per seat per month.")
    shu(home, "ingest", str(make_persona("lumen", rag={"pricing.md": PRICING, "team.md": team})))
    question = "Did the Pro plan or the Team plan cost more per seat?"
    code, output = shu(home, "ask", question, "-p", "lumen", "--agent", "--no-cache")
    assert code == 0, output
    assert "agent (rules, asked for (--agent)):" in output
    assert "1. decompose(query='Did the Pro plan or the Team plan cost more per seat?') → 2 part(s)" in output
    assert "confidence 0." in output
    code, output = shu(home, "--json", "ask", question, "-p", "lumen", "--agent", "--no-cache")
    data = json.loads(output)
    assert (
        code == 0 and data["agent"]["method"] == "rules" and data["agent"]["steps"][0]["tool"] == "decompose"
    )
    assert 0.0 <= data["confidence"] <= 1.0 and data["corrections"] == []
    code, output = shu(home, "--json", "ask", question, "-p", "lumen", "--no-agent", "--no-cache")
    assert json.loads(output)["agent"] is None


def test_serve_refuses_a_public_address_without_keys(home: Path) -> None:
    code, output = shu(home, "serve", "--host", "0.0.0.0")
    assert code == 2 and "refusing to bind 0.0.0.0" in output


def test_shu_serve_answers_http_on_loopback(home: Path, make_persona: PersonaMaker) -> None:
    shu(home, "ingest", str(make_persona("lumen", rag={"pricing.md": PRICING})))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [str(Path(sys.executable).with_name("shu")), "--home", str(home), "serve", "--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        body = {"question": "What does the Pro plan cost?", "persona": "lumen"}
        answer = httpx.post(f"http://127.0.0.1:{port}/v1/ask", json=body, timeout=60).json()
        assert "The Pro plan costs $65 per seat per month." in answer["text"]
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_shu_serve_on_a_busy_port_says_so_in_one_line_before_any_banner(home: Path) -> None:
    command = [str(Path(sys.executable).with_name("shu")), "--home", str(home), "serve", "--port"]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([*command, str(port)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        f"error: cannot serve on 127.0.0.1:{port}: the port is in use (another server?); "
        "choose another with --port\n"
    )


def test_keys_are_made_listed_and_revoked_and_the_token_is_shown_once(
    home: Path, make_persona: PersonaMaker
) -> None:
    shu(home, "ingest", str(make_persona("lumen", rag={"pricing.md": PRICING})))
    code, output = shu(home, "--json", "keys", "create", "--user", "ana", "--personas", "lumen")
    made = json.loads(output)
    assert code == 0 and made["token"].startswith(f"shu_{made['id']}_") and made["personas"] == ["lumen"]
    code, output = shu(home, "keys", "list")
    assert code == 0 and made["id"] in output and "ana" in output and made["token"] not in output
    code, output = shu(home, "keys", "create", "--user", "bob", "--personas", "nobody")
    assert code == 2 and "unknown persona(s) nobody" in output
    code, output = shu(home, "--json", "keys", "create", "--user", "ed", "-p", "lumen", "--write", "lumen")
    assert code == 0 and json.loads(output)["writes"] == ["lumen"]
    code, output = shu(home, "keys", "list")
    assert "writes" in output
    assert shu(home, "keys", "create", "--user", "ed", "--write", "nobody")[0] == 2
    assert shu(home, "keys", "revoke", made["id"])[0] == 0
    code, output = shu(home, "keys", "revoke", made["id"])
    assert code == 2 and "already revoked" in output


def test_with_keys_shu_serve_may_bind_every_address_and_asks_for_a_key(
    home: Path, make_persona: PersonaMaker
) -> None:
    shu(home, "ingest", str(make_persona("lumen", rag={"pricing.md": PRICING})))
    token = json.loads(shu(home, "--json", "keys", "create", "--user", "ana")[1])["token"]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [str(Path(sys.executable).with_name("shu")), "--home", str(home), "serve", "--host", "0.0.0.0"]
    command += ["--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                health = httpx.get(f"{url}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        assert health.json()["auth"] is True
        assert httpx.get(f"{url}/v1/personas").status_code == 401
        listed = httpx.get(f"{url}/v1/personas", headers={"Authorization": f"Bearer {token}"})
        assert [p["slug"] for p in listed.json()] == ["lumen"]
        assert "<html" in httpx.get(f"{url}/").text.lower(), "the web page is served at /"
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_users_are_set_learned_shown_exported_and_forgotten(home: Path, make_persona: PersonaMaker) -> None:
    from shu_eval.samples.mail import make_mbox

    shu(home, "ingest", str(make_persona("club", raw={"board.mbox": make_mbox()}).parent))
    code, output = shu(home, "users", "set", "ayla", "--name", "Ayla Demir", "--email", "ayla@harbor.example",
                       "--project", "Q3 repair budget", "--prefer", "summary")  # fmt: skip
    assert code == 0 and "Ayla Demir" in output and "Q3 repair budget" in output
    code, output = shu(home, "users", "learn", "ayla")
    assert code == 0 and "contact" in output and "Jonas" in output
    learned = json.loads(shu(home, "--json", "users", "show", "ayla")[1])
    assert learned["contacts"][0]["email"] == "jonas@harbor.example"
    assert learned["preferences"] == {"detail": "summary"}
    assert shu(home, "users", "list")[1].strip() == "ayla"
    code, output = shu(home, "search", "repair budget", "-p", "club", "--as", "ayla", "--trace")
    assert code == 0 and "personal ranking for ayla" in output
    code, output = shu(home, "ask", "What is the repair budget?", "-p", "club", "--as", "nobody")
    assert code == 2 and "unknown user 'nobody'" in output
    assert json.loads(shu(home, "users", "export", "ayla")[1])["profile"]["name"] == "Ayla Demir"
    first = learned_doc(home)
    code, output = shu(home, "users", "feedback", "ayla", "-k", "star", "-p", "club", "--doc", first)
    assert code == 0 and "recorded: star by ayla" in output
    assert shu(home, "users", "feedback", "ghost", "-k", "up", "-p", "club")[0] == 2, "an unknown user"
    shu(home, "ask", "What is the Q3 repair budget?", "-p", "club", "--as", "ayla")
    kinds = [s["kind"] for s in json.loads(shu(home, "users", "export", "ayla")[1])["signals"]]
    assert "star" in kinds and "used_in_answer" in kinds, kinds
    code, output = shu(home, "users", "set", "ayla", "--prefer", "loud")
    assert code == 2 and "detail or summary" in output
    code, output = shu(home, "users", "learning", "ayla", "off")
    assert code == 0 and "learning paused" in output
    code, output = shu(home, "users", "learning", "ayla", "on")
    assert code == 0 and "learning on; last learned 20" in output
    assert shu(home, "users", "learning", "ayla", "maybe")[0] == 2
    code, output = shu(home, "--json", "users", "reset", "ayla")
    reset = json.loads(output)
    assert code == 0 and reset["learned"] == "" and all(c["source"] == "set" for c in reset["contacts"])
    assert shu(home, "users", "reset", "ghost")[0] == 2, "an unknown user"
    code, output = shu(home, "users", "forget", "ayla", "--yes")
    assert code == 0 and "forgot ayla: 1 profile, 2 signals, 0 keys" in output
    code, output = shu(home, "users", "show", "ayla")
    assert code == 2 and "unknown user 'ayla'" in output


def learned_doc(home: Path) -> str:
    """The id of the first document of the club persona."""
    return json.loads(shu(home, "--json", "docs", "-p", "club")[1])[0]["id"]
