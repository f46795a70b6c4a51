// One question and its answer in the thread: the streamed text, then the checked answer with
// numbered citations, its sources, feedback buttons and the trace.

import { sendFeedback } from "./api.js";
import { append, clear, el, icon, sectionLabel } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { renderTrace } from "./trace.js";
import { describeFilter } from "./filters.js";

// `[^doc_id:section path]` — doc ids are slugs; a section path never holds "]" (written as ")").
const CITATION = /\[\^[a-z0-9][a-z0-9._-]*:[^\]\n]+\]/g;
const FEEDBACK_TEXT_LIMIT = 20000;

/**
 * Footnote numbers by first appearance: key → {n, citation}. With `citations` only keys the
 * answer resolved become numbers (others stay plain text); while streaming every key does.
 */
export function numberCitations(text, citations = null) {
  const known = new Map((citations || []).map((c) => [c.key, c]));
  const numbers = new Map();
  for (const [key] of String(text).matchAll(CITATION)) {
    if (numbers.has(key) || (citations && !known.has(key))) continue;
    numbers.set(key, { n: numbers.size + 1, citation: known.get(key) || null });
  }
  for (const citation of known.values()) {
    if (!numbers.has(citation.key)) numbers.set(citation.key, { n: numbers.size + 1, citation });
  }
  return numbers;
}

/**
 * Streamed text as far as it can be shown: a table row once it is whole, a table's header once
 * its rule line is (before that it would read as a line of pipes).
 */
export function settledText(text) {
  const lines = String(text).split("\n");
  const piped = (i) => i >= 0 && /^\s*\|/.test(lines[i]);
  let end = lines.length - 1; // the line being written
  if (!piped(end) && lines[end] !== "") return String(text);
  if (piped(end - 1) && !piped(end - 2)) end -= 1; // a header still waiting for its rule
  return lines.slice(0, end).join("\n");
}

/** The answer's text as Markdown, citations as numbered buttons (unknown keys stay text). */
export function renderAnswerText(container, text, numbers, onCite) {
  const citation = (key) => citationMark(numbers.get(key), onCite);
  return renderMarkdown(clear(container), text, { citation, flags: true });
}

function citationMark(entry, onCite) {
  if (!entry) return null; // not a citation the answer resolved: the key stays plain text
  if (!entry.citation) return el("span", { class: "cite pending" }, String(entry.n));
  const { citation, n } = entry;
  const label = `${citation.title || citation.doc_id} — ${sectionLabel(citation.section_path, citation.title)}`;
  return el(
    "button",
    {
      type: "button",
      class: "cite",
      title: label,
      "aria-label": `Source ${n}: ${label}`,
      "data-key": citation.key,
      onclick: () => onCite(citation),
    },
    String(n),
  );
}

function sourcesList(numbers, onCite) {
  const entries = [...numbers.values()].filter((entry) => entry.citation);
  if (!entries.length) return null;
  const items = entries.map(({ n, citation }) =>
    el(
      "li",
      {},
      el(
        "button",
        { type: "button", class: "source", onclick: () => onCite(citation) },
        el("span", { class: "source-n" }, String(n)),
        el("span", { class: "source-title" }, citation.title || citation.doc_id),
        el("span", { class: "source-section" }, sectionLabel(citation.section_path, citation.title)),
        citation.license ? el("span", { class: "source-license" }, `Licence: ${citation.license}`) : null,
      ),
    ),
  );
  return el("section", { class: "sources", "aria-label": "Sources" }, el("h3", {}, "Sources"), el("ol", {}, items));
}

function confidenceBadge(confidence) {
  if (typeof confidence !== "number") return null;
  const level = confidence >= 0.66 ? "high" : confidence >= 0.33 ? "medium" : "low";
  return el(
    "span",
    { class: `badge confidence ${level}`, title: "How likely the answer is right (calibrated on the answer eval)" },
    `Confidence ${Math.round(confidence * 100)}%`,
  );
}

function answerBadges(answer) {
  const badges = [confidenceBadge(answer.confidence)];
  if (answer.insufficient) badges.push(el("span", { class: "badge warn" }, "Not answered by the documents"));
  if (answer.premise) badges.push(el("span", { class: "badge warn" }, "The question's premise does not hold"));
  if (answer.out_of_scope) badges.push(el("span", { class: "badge warn" }, "Outside this persona's subject"));
  if (answer.from_knowledge_base === false) badges.push(el("span", { class: "badge warn" }, "General knowledge, not the documents"));
  if (answer.cached) badges.push(el("span", { class: "badge" }, "Cached"));
  return el("div", { class: "badges" }, badges);
}

function feedbackRow(answer, persona) {
  const note = el("span", { class: "feedback-note", role: "status" });
  const buttons = {};
  const choose = async (kind) => {
    if (buttons[kind].getAttribute("aria-pressed") === "true") return;
    for (const [name, button] of Object.entries(buttons)) button.setAttribute("aria-pressed", String(name === kind));
    const signal = { persona, kind, question: answer.question, answer: String(answer.text || "").slice(0, FEEDBACK_TEXT_LIMIT) };
    const outcome = await sendFeedback(signal);
    note.textContent = outcome === "sent" ? "Thanks for the feedback" : outcome === "unavailable" ? "" : `Feedback not saved: ${outcome}`;
  };
  for (const [kind, label] of [["up", "Helpful"], ["down", "Not helpful"]]) {
    buttons[kind] = el(
      "button",
      {
        type: "button",
        class: `icon-button feedback-${kind}`,
        title: label,
        "aria-label": label,
        "aria-pressed": "false",
        onclick: () => choose(kind),
      },
      icon(kind),
    );
  }
  return el("div", { class: "feedback" }, buttons.up, buttons.down, note);
}

/** A new turn in the thread; its methods show the stream's events. */
export function createTurn({ question, persona, personaName, onCite, onGraph = null }) {
  const status = el("p", { class: "status" }, el("span", { class: "spinner", "aria-hidden": "true" }), "Searching the documents…");
  const body = el("div", { class: "answer-text" });
  const notice = el("p", { class: "notice", hidden: true });
  const extras = el("div", { class: "answer-extras" });
  const answerBox = el("article", { class: "answer", "aria-busy": "true", "aria-label": "Answer" }, status, notice, body, extras);
  const node = el(
    "li",
    { class: "turn pending" },
    el("div", { class: "question" }, el("span", { class: "persona-tag" }, personaName), el("p", {}, question)),
    answerBox,
  );
  let drawn = "";
  let frame = 0;
  let withdrawn = null; // why the last draft was withdrawn (a `reset` event)

  const finish = (state) => {
    node.classList.remove("pending");
    node.classList.add(state);
    answerBox.setAttribute("aria-busy", "false");
    status.hidden = true;
  };

  return {
    node,
    /** What answering is doing before text comes (a `progress` event: searching, reading, …). */
    progress({ stage, detail } = {}) {
      const said = {
        searching: "Searching the documents…",
        reading: detail ? `Reading ${detail}…` : "Reading what was found…",
        investigating: detail ? `Looking further: ${detail}…` : "Looking further…",
      };
      if (said[stage]) status.lastChild.textContent = said[stage];
    },
    /** The text written so far (citation keys numbered but not yet clickable). */
    streamed(text) {
      drawn = text;
      status.lastChild.textContent = "Writing…";
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        const settled = settledText(drawn);
        renderAnswerText(body, settled, numberCitations(settled), onCite);
      });
    },
    /** What was shown is withdrawn (the answer is being written again). */
    reset(reason) {
      drawn = "";
      withdrawn = reason || "";
      cancelAnimationFrame(frame);
      frame = 0;
      clear(body);
      notice.hidden = false;
      notice.textContent = reason ? `Rewriting the answer: ${reason}` : "Rewriting the answer";
    },
    /** The checked answer; `restored`: a turn of a kept conversation, shown again (no trace or feedback). */
    answered(answer, { restored = false } = {}) {
      cancelAnimationFrame(frame);
      frame = 0;
      const text = answer.shown_text || answer.text || "";
      const numbers = numberCitations(text, answer.citations || []);
      renderAnswerText(body, text || "(no answer)", numbers, onCite);
      const notes = [];
      if (withdrawn !== null) notes.push(withdrawn ? `A first draft was withdrawn: ${withdrawn}.` : "A first draft was withdrawn.");
      if (answer.fallback_reason) notes.push(`The model did not answer (${answer.fallback_reason}); quoted from the documents instead.`);
      if (answer.standalone_question) notes.push(`Searched as: “${answer.standalone_question}”.`);
      if (answer.filter) {
        const kept = Number.isInteger(answer.filtered) ? ` (${answer.filtered} document${answer.filtered === 1 ? "" : "s"})` : "";
        notes.push(`Kept to: ${describeFilter(answer.filter)}${kept}.`);
      }
      notice.hidden = !notes.length;
      notice.textContent = notes.join(" ");
      const live = restored ? [] : [feedbackRow(answer, persona), renderTrace(answer, onCite, onGraph)];
      append(clear(extras), answerBadges(answer), sourcesList(numbers, onCite), ...live);
      finish("done");
    },
    failed(message) {
      cancelAnimationFrame(frame);
      frame = 0;
      if (drawn) renderAnswerText(body, drawn, numberCitations(drawn), onCite); // what came, unfinished
      append(clear(extras), el("p", { class: "error", role: "alert" }, message));
      finish("failed");
    },
  };
}
