"""What `shu eval-replay` reports: right answers of the recorded questions, right answers marked
`[unsupported]` / `[contradicted]` (and the claims, with the verdicts' reasons), right answers under
confidence 0.6, the confidence of right vs wrong answers and its ECE, list lead-ins verified as
claims, the largest verify request, what the replay did with each request, and how the replayed
answers compare with the answers recorded then."""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path
from statistics import median
from typing import Any

from shu_eval.confidence import ece
from shu_eval.recordings import Recorded
from shu_eval.replay import Replayed
from shu_eval.replay_model import Sent

_KEYS = re.compile(r"\[\^[^\]\n]*\]")
LOW = 0.6
"""A right answer under this confidence reads as doubtful."""


def summary(rows: list[Replayed], recordings: dict[str, Recorded], verify: str) -> dict[str, Any]:
    right = [r for r in rows if r.graded.right]
    answered_right = [r for r in right if not r.graded.declined]
    scored = [r for r in rows if r.confidence is not None]
    sent = [s for r in rows for s in r.sent]
    return {
        "verify": verify,
        "questions": len(rows),
        "right": len(right),
        "wrong": [r.graded.id for r in rows if not r.graded.right],
        "right_answered": len(answered_right),
        "right_declined": len(right) - len(answered_right),
        "right_marked": len([r for r in answered_right if r.marked]),
        "flagged_claims": [
            {"question": r.graded.id, **asdict(flag)} for r in answered_right for flag in r.flags
        ],
        "flagged_claims_wrong": [
            {"question": r.graded.id, **asdict(flag)} for r in rows if not r.graded.right for flag in r.flags
        ],
        "right_below_0_6": [
            r.graded.id for r in answered_right if r.confidence is not None and r.confidence < LOW
        ],
        "confidence_right": _spread([r.confidence for r in scored if r.graded.right]),
        "confidence_wrong": _spread([r.confidence for r in scored if not r.graded.right]),
        "confidence_right_answered": _spread(
            [r.confidence for r in answered_right if r.confidence is not None]
        ),
        "ece": round(ece([_value(r) for r in scored], [r.graded.right for r in scored], bins=10), 4),
        "lead_ins_verified": [{"question": r.graded.id, "claim": c} for r in rows for c in r.lead_ins],
        "requests": {
            kind: _outcomes([s.outcome for s in sent if s.kind == kind])
            for kind in ("scope", "answer", "verify", "other")
        },
        "answer_prompts_as_recorded": sum(bool(s.same_prompt) for s in sent if s.kind == "answer"),
        "largest_verify_request": {
            "recorded": _largest_recorded(recordings),
            "replayed": _largest_sent(rows),
        },
        "vs_recorded": compare(rows, recordings),
    }


def compare(rows: list[Replayed], recordings: dict[str, Recorded]) -> dict[str, Any]:
    """Each replayed answer beside the recorded one: confidence (4 decimals), the flagged claims
    (verdict and claim), and the text with its citation keys removed."""
    matches = {"confidence": 0, "marks": 0, "text": 0, "exactly": 0}
    mismatches = []
    for row in rows:
        then = recordings[row.graded.id].answer
        same = {
            "confidence": then.get("confidence") == row.confidence,
            "marks": _recorded_flags(then) == sorted((f.verdict, f.claim) for f in row.flags),
            "text": _words(str(then.get("text", ""))) == _words(row.graded.text),
        }
        for name, equal in same.items():
            matches[name] += equal
        matches["exactly"] += all(same.values())
        if not all(same.values()):
            mismatches.append(
                {
                    "question": row.graded.id,
                    "differs": [name for name, equal in same.items() if not equal],
                    "confidence": [then.get("confidence"), row.confidence],
                    "marks": [len(_recorded_flags(then)), len(row.flags)],
                    "verify_method": [(then.get("verification") or {}).get("method"), row.verify_method],
                    "requests": [_label(s) for s in row.sent],
                }
            )
    return {**matches, "mismatches": mismatches}


def _label(sent: Sent) -> str:
    """`kind:outcome`, and whether its prompt is the recorded one ("same" / "changed")."""
    prompt = "" if sent.same_prompt is None else " same" if sent.same_prompt else " changed"
    return f"{sent.kind}:{sent.outcome}{prompt}"


def _recorded_flags(answer: dict[str, Any]) -> list[tuple[str, str]]:
    verdicts = (answer.get("verification") or {}).get("verdicts", [])
    return sorted((v["verdict"], v["claim"]) for v in verdicts if v["verdict"] != "supported")


def _words(text: str) -> str:
    return " ".join(said_text(text).split())


def said_text(text: str) -> str:
    """Text without its citation keys (as the labelled eval reads it)."""
    return _KEYS.sub(" ", text)


def _value(row: Replayed) -> float:
    assert row.confidence is not None
    return row.confidence


def _spread(values: list[float | None]) -> dict[str, float | int | None]:
    found = [v for v in values if v is not None]
    if not found:
        return {"n": 0, "min": None, "median": None, "max": None}
    return {"n": len(found), "min": min(found), "median": round(median(found), 4), "max": max(found)}


def _outcomes(outcomes: list[str]) -> dict[str, int]:
    return {name: outcomes.count(name) for name in dict.fromkeys(outcomes)}


def _largest_recorded(recordings: dict[str, Recorded]) -> dict[str, Any] | None:
    verifies = [(r.question_id, e) for r in recordings.values() for e in r.exchanges if e.kind == "verify"]
    if not verifies:
        return None
    question, biggest = max(verifies, key=lambda pair: pair[1].request_chars)
    return {
        "question": question,
        "request": biggest.number,
        "chars": biggest.request_chars,
        "max_tokens": biggest.request.get("max_tokens"),
        "reply_chars": len(biggest.reply),
        "reply_tokens": biggest.reply_tokens,
        "reply_tokens_note": "Shu's own count (shu.text.count_tokens); the provider's was not recorded",
    }


def _largest_sent(rows: list[Replayed]) -> dict[str, Any] | None:
    sent = [(r.graded.id, s) for r in rows for s in r.sent if s.kind == "verify"]
    if not sent:
        return None
    question, biggest = max(sent, key=lambda pair: pair[1].chars)
    return {"question": question, "chars": biggest.chars, "recorded_request": biggest.recorded}


def rows_json(rows: list[Replayed]) -> list[dict[str, Any]]:
    return [
        {
            "id": r.graded.id,
            "kind": r.graded.kind,
            "right": r.graded.right,
            "declined": r.graded.declined,
            "missing": r.graded.missing,
            "method": r.graded.method,
            "confidence": r.confidence,
            "features": r.graded.features,
            "written": r.graded.written,
            "verify_method": r.verify_method,
            "claims": r.claims,
            "flags": [asdict(f) for f in r.flags],
            "lead_ins": r.lead_ins,
            "sent": [asdict(s) for s in r.sent],
            "text": r.graded.text,
        }
        for r in rows
    ]


def markdown(data: dict[str, Any]) -> str:
    right, wrong = data["confidence_right"], data["confidence_wrong"]
    requests = data["requests"]
    largest = data["largest_verify_request"]
    vs = data["vs_recorded"]
    lines = [
        f"# Replay of the recorded replies (verify: {data['verify']})",
        "",
        f"- right: **{data['right']} of {data['questions']}** (wrong: {', '.join(data['wrong']) or 'none'})",
        f"- right answers (not declines) marked [unsupported]/[contradicted]: **{data['right_marked']} of "
        f"{data['right_answered']}** ({len(data['flagged_claims'])} claims)",
        f"- right answers with confidence < {LOW}: **{len(data['right_below_0_6'])} of "
        f"{data['right_answered']}** ({', '.join(data['right_below_0_6']) or 'none'})",
        f"- confidence, right ({right['n']}): {_min_median_max(right)}",
        f"- confidence, wrong ({wrong['n']}): {_min_median_max(wrong)}",
        f"- ECE (10 bins, {right['n'] + wrong['n']} answers with a confidence): **{data['ece']}**",
        f"- list lead-ins verified as claims: **{len(data['lead_ins_verified'])}**",
        f"- requests: {', '.join(f'{kind} {_counts(found)}' for kind, found in requests.items() if found)}; "
        f"answer prompts identical to the recorded ones: {data['answer_prompts_as_recorded']}",
    ]
    if largest["recorded"]:
        found = largest["recorded"]
        lines.append(
            f"- largest verify request recorded: req {found['request']} ({found['question']}), "
            f"{found['chars']} characters; its reply {found['reply_chars']} characters, "
            f"~{found['reply_tokens']} tokens (of max_tokens {found['max_tokens']})"
        )
    if largest["replayed"]:
        found = largest["replayed"]
        lines.append(
            f"- largest verify request sent in this replay: {found['chars']} characters ({found['question']})"
        )
    lines += [
        f"- vs the recorded answers: confidence equal {vs['confidence']}, marks equal {vs['marks']}, "
        f"text equal {vs['text']}, all three {vs['exactly']} of {data['questions']}",
        "",
    ]
    if data["flagged_claims"]:
        lines += [
            "## Flagged claims of right answers",
            "",
            "| question | verdict | claim | reason |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {f['question']} | {f['verdict']} | {_cell(f['claim'])} | {_cell(f['reason'])} |"
            for f in data["flagged_claims"]
        ]
        lines.append("")
    if data["lead_ins_verified"]:
        lines += ["## Lead-ins verified", ""] + [
            f"- {x['question']}: {x['claim']}" for x in data["lead_ins_verified"]
        ]
        lines.append("")
    if vs["mismatches"]:
        lines += [
            "## Replayed vs recorded answers (mismatches)",
            "",
            "| question | differs | confidence then / now | marks then / now | verified by then / now "
            "| requests |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {m['question']} | {', '.join(m['differs'])} | {m['confidence'][0]} / {m['confidence'][1]} | "
            f"{m['marks'][0]} / {m['marks'][1]} | {m['verify_method'][0]} / {m['verify_method'][1]} | "
            f"{'; '.join(m['requests'])} |"
            for m in vs["mismatches"]
        ]
        lines.append("")
    return "\n".join(lines)


def _min_median_max(spread: dict[str, Any]) -> str:
    return f"min {spread['min']} / median {spread['median']} / max {spread['max']}"


def _counts(found: dict[str, int]) -> str:
    return "(" + ", ".join(f"{name} {count}" for name, count in found.items()) + ")"


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def write(folder: Path, data: dict[str, Any], rows: list[Replayed]) -> None:
    """replay.json (the summary and one row a question) and replay.md."""
    folder.mkdir(parents=True, exist_ok=True)
    payload = {"replay": data, "questions": rows_json(rows)}
    (folder / f"replay-{data['verify']}.json").write_text(
        json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (folder / f"replay-{data['verify']}.md").write_text(markdown(data) + "\n", encoding="utf-8")
