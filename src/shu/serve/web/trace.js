// The collapsible trace under an answer: the plan, each surface's best hits, fusion, timings,
// the verifier's verdicts, corrective retrieval, the agent's steps, the confidence.

import { el, formatNumber, sectionLabel } from "./dom.js";
import { inline } from "./markdown.js";

const TOP_HITS = 5;

/** chunk id → {text: "Title › section", doc_id, section_path} from what the answer carries. */
function chunkLabels(answer) {
  const labels = new Map();
  const documents = (answer.retrieval && answer.retrieval.context && answer.retrieval.context.documents) || [];
  const add = (id, docId, title, sectionPath) => {
    const text = sectionPath ? `${title} › ${sectionLabel(sectionPath, title)}` : title;
    labels.set(id, { text, doc_id: docId, section_path: sectionPath || null });
  };
  for (const doc of documents) {
    add(doc.doc_id, doc.doc_id, doc.title, null);
    for (const section of doc.sections || []) {
      for (const id of section.chunk_ids || []) add(id, doc.doc_id, doc.title, section.section_path);
    }
  }
  for (const c of answer.citations || []) add(c.chunk_id, c.doc_id, c.title, c.section_path);
  return (hit) => {
    const id = String(hit.chunk_id || hit.doc_id || "");
    return labels.get(id) || labels.get(id.split("#")[0]) || { text: id, doc_id: null, section_path: null };
  };
}

function block(title, ...content) {
  const filled = content.flat().filter(Boolean);
  return filled.length ? el("section", { class: "trace-block" }, el("h4", {}, title), filled) : null;
}

function pairs(entries) {
  const shown = (value) => value !== null && value !== undefined && value !== "" && !(Array.isArray(value) && !value.length);
  const rows = entries.filter(([, value]) => shown(value));
  if (!rows.length) return null;
  return el("dl", { class: "pairs" }, rows.map(([name, value]) => [el("dt", {}, name), el("dd", {}, show(value))]));
}

function show(value) {
  if (Array.isArray(value)) return value.map(show).join(", ");
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : formatNumber(value, 3);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (value && typeof value === "object") {
    return Object.entries(value).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => `${k}: ${show(v)}`).join(", ") || "–";
  }
  return String(value);
}

function hitName(found, onOpen) {
  if (!found.doc_id || !onOpen) return found.text;
  const open = () => onOpen({ doc_id: found.doc_id, key: null, section_path: found.section_path });
  return el("button", { type: "button", class: "link hit-link", onclick: open }, found.text);
}

function hitTable(hits, label, onOpen) {
  const rows = (hits || []).slice(0, TOP_HITS).map((hit, i) =>
    el(
      "tr",
      {},
      el("td", { class: "rank" }, String(i + 1)),
      el("td", { class: "hit" }, hitName(label(hit), onOpen)),
      el("td", { class: "score" }, formatNumber(hit.score, 3)),
    ),
  );
  if (!rows.length) return el("p", { class: "muted" }, "no hits");
  return el("div", { class: "table-wrap" }, el("table", { class: "hits" }, el("tbody", {}, rows)));
}

function planBlock(retrieval) {
  const plan = retrieval.plan || {};
  const queries = retrieval.queries || {};
  return block(
    "Plan",
    pairs([
      ["type", plan.query_type],
      ["intent", plan.intent],
      ["answer style", plan.answer_style],
      ["complexity", plan.complexity],
      ["entities", plan.entities],
      ["title hints", plan.title_hints],
      ["document type", plan.implied_document_type],
      ["time", plan.temporal_scope && (plan.temporal_scope.start || plan.temporal_scope.end) ? plan.temporal_scope : null],
      ["planner", plan.method],
      ["rewritten", queries.rewritten !== queries.original ? queries.rewritten : null],
      ["variations", queries.variations],
      ["sub-questions", retrieval.sub_questions],
    ]),
  );
}

function surfacesBlock(retrieval, label, onOpen) {
  const surfaces = Object.entries(retrieval.surfaces || {});
  const parts = surfaces.map(([name, hits]) =>
    el("div", { class: "surface" }, el("h5", {}, `${name} (${(hits || []).length})`), hitTable(hits, label, onOpen)),
  );
  if (retrieval.fused && retrieval.fused.length) {
    parts.push(el("div", { class: "surface fused" }, el("h5", {}, "fused"), hitTable(retrieval.fused, label, onOpen)));
  }
  return block("Surfaces", el("div", { class: "surfaces" }, parts));
}

/** Who the ranking was personalized for: each boosted document with its reasons, and what the
 * question's "my", names and "the proposal" were taken to mean. */
function personalBlock(retrieval, label, onOpen) {
  if (!retrieval.asker) return null;
  const boosts = (retrieval.personal || []).map((boost) =>
    el(
      "li",
      { class: "boost" },
      el("span", { class: "badge boost-size" }, `+${formatNumber(boost.boost, 2)}`),
      " ",
      hitName(label({ doc_id: boost.doc_id }), onOpen),
      el("div", { class: "reason" }, (boost.reasons || []).join("; ")),
    ),
  );
  const meant = (retrieval.resolved || []).map((match) => [`“${match.phrase}”`, `${match.means} (${match.kind})`]);
  return block(
    `Ranked for ${retrieval.asker}`,
    boosts.length ? el("ol", { class: "boosts" }, boosts) : el("p", { class: "muted" }, "nothing boosted: the plain ranking stands"),
    pairs(meant),
  );
}

function timingsBlock(retrieval) {
  const timings = Object.entries(retrieval.timings_ms || {});
  if (!timings.length) return null;
  const total = timings.reduce((sum, [, ms]) => sum + (Number(ms) || 0), 0);
  const chips = timings.map(([stage, ms]) => el("span", { class: "chip" }, `${stage} ${formatNumber(ms, 1)} ms`));
  chips.push(el("span", { class: "chip total" }, `total ${formatNumber(total, 1)} ms`));
  return block("Timings", el("div", { class: "chips" }, chips));
}

function verificationBlock(verification) {
  if (!verification) return null;
  const verdicts = (verification.verdicts || []).map((v) =>
    el(
      "li",
      { class: `verdict ${v.verdict}` },
      el("span", { class: `badge verdict-${v.verdict}` }, v.verdict),
      inline(el("span", { class: "claim" }), String(v.claim || "")),
      el("span", { class: "reason" }, v.reason),
      v.quote ? el("q", {}, v.quote) : null,
    ),
  );
  const list = verdicts.length ? el("ul", { class: "verdicts" }, verdicts) : null;
  return block("Verification", pairs([["method", verification.method]]), list);
}

function checkBlock(check, corrections) {
  const rows = [];
  if (check) {
    rows.push(["citations kept", check.kept], ["repaired", check.repaired]);
    rows.push(["removed", check.removed], ["uncited", check.uncited]);
  }
  for (const c of corrections || []) {
    const found = `${(c.new_documents || []).length} new document(s)`;
    rows.push([`corrected (${c.reason})`, `searched "${c.query}", ${found}, ${c.kept ? "kept" : "first answer kept"}`]);
  }
  return block("Checks", pairs(rows));
}

function agentBlock(agent) {
  if (!agent) return null;
  const steps = (agent.steps || []).map((step) =>
    el(
      "li",
      { class: step.refused ? "step refused" : "step" },
      el("code", {}, step.tool),
      " ",
      el("span", { class: "muted" }, show(step.arguments || {})),
      el("div", {}, step.refused ? `refused: ${step.refused}` : step.summary),
    ),
  );
  return block(
    "Agent",
    pairs([["method", agent.method], ["why", agent.reason], ["stopped", agent.stopped], ["documents added", agent.documents]]),
    steps.length ? el("ol", { class: "steps" }, steps) : null,
  );
}

/** The links one-hop expansion followed (seed → document, by relationship), and a way to see
 * them highlighted in the persona's graph. */
function expansionBlock(retrieval, onGraph) {
  const expanded = (retrieval.retrieval_plan && retrieval.retrieval_plan.expanded) || [];
  if (!expanded.length) return null;
  const followed = expanded.map((e) => ({ source: e.via, target: e.doc_id, relation: e.relation }));
  return block(
    "Links followed",
    el(
      "ul",
      { class: "followed" },
      expanded.map((e) => el("li", {}, `${e.via} —${e.relation}→ ${e.doc_id}`, el("span", { class: "muted" }, ` (${formatNumber(e.confidence, 2)})`))),
    ),
    onGraph ? el("button", { type: "button", class: "ghost show-in-graph", onclick: () => onGraph(followed) }, "Show them in the graph") : null,
  );
}

/** The trace of `answer`; `onOpen(citation-like)` opens a hit's document in the panel;
 * `onGraph(links)` shows the persona's graph with the links expansion followed highlighted. */
export function renderTrace(answer, onOpen = null, onGraph = null) {
  const retrieval = answer.retrieval || {};
  const label = chunkLabels(answer);
  const overview = block(
    "Answer",
    pairs([
      ["method", answer.method],
      ["searched as", answer.standalone_question],
      ["confidence", answer.confidence],
      ["evidence", answer.evidence],
      ["LLM calls", answer.llm_calls],
      ["LLM tokens", answer.llm_tokens],
      ["LLM stopped", answer.llm_stopped],
      ["cached", answer.cached],
    ]),
  );
  const noted = (retrieval.notes || []).map((note) => el("li", {}, note));
  const notes = noted.length ? block("Notes", el("ul", { class: "notes" }, noted)) : null;
  return el(
    "details",
    { class: "trace" },
    el("summary", {}, "How this answer was found"),
    el(
      "div",
      { class: "trace-body" },
      overview,
      answer.retrieval ? planBlock(retrieval) : null,
      answer.retrieval ? expansionBlock(retrieval, onGraph) : null,
      answer.retrieval ? surfacesBlock(retrieval, label, onOpen) : null,
      personalBlock(retrieval, label, onOpen),
      timingsBlock(retrieval),
      verificationBlock(answer.verification),
      checkBlock(answer.check, answer.corrections),
      agentBlock(answer.agent),
      notes,
    ),
  );
}
