"""An answer in the terminal as it is written: pieces printed as they arrive, each citation key
shown as its footnote number (or as the key, `answer.citation_style = keys`), tables drawn as
tables, then the footnotes, and what the citation check found. Whatever is withdrawn mid-stream
is said to be withdrawn."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.markup import escape

from shu.answer.render import footnote, render_answer, source_line
from shu.answer.stream import AskEvent, Progress, StreamReset
from shu.serve.answer_tables import StreamedTables, print_markdown
from shu.types import Answer


def show_streamed(events: Iterable[AskEvent], out: Console, style: str) -> Answer:
    numbers: dict[str, int] = {}
    streamed = False
    final: Answer | None = None
    written = StreamedTables(out)
    for event in events:
        if isinstance(event, Answer):
            final = event
        elif isinstance(event, StreamReset):
            written.drop()
            if streamed:
                out.print(f"\n[dim]— withdrawn: {escape(event.reason)}[/dim]\n", highlight=False)
            numbers, streamed = {}, False
        elif isinstance(event, Progress):
            continue  # the terminal shows the text as it comes; the page shows the stages
        elif event:
            shown = event
            if event.startswith("[^") and style == "footnotes":
                shown = f"[^{numbers.setdefault(event, len(numbers) + 1)}]"
            written.write(shown)
            streamed = True
    written.close()
    assert final is not None, "a stream always ends with an answer"
    if not streamed or final.insufficient:
        if streamed:
            out.print("\n")
        if final.fallback_reason:
            out.print(f"[dim]The LLM did not answer ({escape(final.fallback_reason)}); quoted instead:[/dim]")
        print_markdown(out, render_answer(final, style))
    else:
        out.print("\n")
        _notes(final, numbers, out, style)
    _check(final, out)
    _how(final, out)
    return final


def _how(final: Answer, out: Console) -> None:
    """What happened beyond the first retrieval: the filter, corrections, the agent's steps, the
    confidence."""
    retrieval = final.retrieval
    if retrieval is not None and retrieval.filter is not None:
        kept = f" ({retrieval.filtered} document(s) kept)" if retrieval.filtered is not None else ""
        out.print(f"[dim]filtered: {escape(retrieval.filter.described())}{kept}[/dim]", highlight=False)
    for correction in final.corrections:
        outcome = "kept" if correction.kept else "not better, first answer kept"
        out.print(
            f"[dim]corrective retrieval ({escape(correction.reason)}): searched "
            f"{escape(repr(correction.query))}, {len(correction.new_documents)} new document(s), "
            f"{outcome}[/dim]",
            highlight=False,
        )
    if final.agent is not None:
        trace = final.agent
        out.print(
            f"[dim]agent ({escape(trace.method)}, {escape(trace.reason)}): {len(trace.steps)} step(s), "
            f"stopped on {escape(trace.stopped)}, {trace.ms:.0f} ms[/dim]",
            highlight=False,
        )
        for number, step in enumerate(trace.steps, start=1):
            said = f"refused: {step.refused}" if step.refused else step.summary
            arguments = ", ".join(f"{k}={v!r}" for k, v in step.arguments.items())
            out.print(
                f"[dim]  {number}. {escape(step.tool)}({escape(arguments)}) → {escape(said)}[/dim]",
                highlight=False,
            )
    if final.llm_stopped:
        out.print(
            f"[yellow]The LLM was not asked again for this question: {escape(final.llm_stopped)}; "
            "the steps after that used their non-LLM methods.[/yellow]",
            highlight=False,
        )
    if final.confidence is not None:
        out.print(f"[dim]confidence {final.confidence:.2f}[/dim]", highlight=False)


def _notes(final: Answer, numbers: dict[str, int], out: Console, style: str) -> None:
    if not final.citations:
        return
    by_key = {c.key: c for c in final.citations}
    if style == "keys":
        out.print("Sources:\n" + "\n".join(escape(source_line(c)) for c in final.citations), highlight=False)
        return
    for key, number in sorted(numbers.items(), key=lambda item: item[1]):
        if key in by_key:
            out.print(escape(footnote(number, by_key[key])), highlight=False)


def _check(final: Answer, out: Console) -> None:
    if final.verification is not None:
        flagged = final.verification.flagged
        for kind, color, said in (
            ("contradicted", "red", "contradicted by what they cite"),
            ("unsupported", "yellow", "not supported by what they cite"),
        ):
            verdicts = [v for v in flagged if v.verdict == kind]
            if verdicts:
                out.print(f"[{color}]{len(verdicts)} claim(s) {said}:[/{color}]")
            for verdict in verdicts:
                out.print(
                    f"  [{color}]·[/{color}] {escape(verdict.claim)} — {kind}: {escape(verdict.reason)}",
                    highlight=False,
                )
                if kind == "contradicted" and verdict.quote:
                    quote = escape(verdict.quote)
                    out.print(f"    [dim]the cited section says: {quote}[/dim]", highlight=False)
    check = final.check
    if check is None:
        return
    if check.removed:
        out.print(f"[dim]{len(check.removed)} citation(s) the context did not contain were removed.[/dim]")
    if check.uncited:
        out.print(f"[yellow]{len(check.uncited)} sentence(s) cite nothing:[/yellow]")
        for sentence in check.uncited:
            out.print(f"  [yellow]·[/yellow] {escape(sentence)}", highlight=False)
