// The graph view in the side panel: a persona's documents and the people, projects and entities
// they connect (the filter row's filter applies), the links an answer's expansion followed
// highlighted; a document node opens the document (Back returns here), another node lists the
// documents that name it.

import { getJSON } from "./api.js";
import { append, clear, el } from "./dom.js";
import { describeGraph, drawGraph, KIND_NAMES } from "./graph_view.js";
import { openDocument, showInPanel } from "./panel.js";

const FILTER_PARAMS = [["since", "since"], ["until", "until"], ["types", "type"], ["tags", "tag"], ["people", "person"], ["sources", "source"], ["doc_ids", "doc"]];

/** The graph's URL: `around` one document, or the documents `filter` keeps. */
export function graphUrl(persona, { around = null, filter = null } = {}) {
  const query = new URLSearchParams();
  if (around) query.append("around", around);
  for (const [field, param] of FILTER_PARAMS) {
    const value = filter && filter[field];
    for (const one of Array.isArray(value) ? value : value ? [value] : []) query.append(param, one);
  }
  const tail = query.toString();
  return `/v1/personas/${encodeURIComponent(persona)}/graph${tail ? `?${tail}` : ""}`;
}

function counts(graph) {
  const by = {};
  for (const node of graph.nodes || []) by[node.kind] = (by[node.kind] || 0) + 1;
  const links = (graph.edges || []).filter((e) => e.source.startsWith("document:") && e.target.startsWith("document:")).length;
  const parts = [
    `${by.document || 0} document${by.document === 1 ? "" : "s"}`,
    `${by.person || 0} ${by.person === 1 ? "person" : "people"}`,
    by.project ? `${by.project} project${by.project === 1 ? "" : "s"}` : "",
    by.entity ? `${by.entity} entit${by.entity === 1 ? "y" : "ies"}` : "",
    `${links} link${links === 1 ? "" : "s"} between documents`,
  ];
  return parts.filter(Boolean).join(" · ");
}

function legend() {
  return el(
    "ul",
    { class: "graph-legend", "aria-label": "Legend" },
    Object.entries(KIND_NAMES).map(([kind, name]) => el("li", { class: `legend-${kind}` }, el("span", { class: "swatch", "aria-hidden": "true" }), name)),
  );
}

/** The documents a node is linked with (its edges' other ends), for the details list. */
function linkedDocuments(graph, nodeId) {
  const labels = new Map((graph.nodes || []).map((n) => [n.id, n]));
  const found = [];
  for (const edge of graph.edges || []) {
    const other = edge.source === nodeId ? edge.target : edge.target === nodeId ? edge.source : null;
    const node = other && labels.get(other);
    if (node && node.kind === "document") found.push({ node, kind: edge.kind });
  }
  return found;
}

function nodeDetails(box, graph, data, openOne) {
  const found = linkedDocuments(graph, data.id);
  append(
    clear(box),
    el("h3", {}, `${KIND_NAMES[data.kind] || data.kind}: ${data.label}`),
    found.length
      ? el(
          "ul",
          { class: "graph-links" },
          found.map(({ node, kind }) =>
            el("li", {}, el("span", { class: "muted" }, `${kind} · `), el("button", { type: "button", class: "link", onclick: () => openOne(node.doc_id) }, node.label)),
          ),
        )
      : el("p", { class: "muted" }, "No document in this graph names it."),
  );
}

/** Open the graph of `persona` in the panel; `highlight`: links an answer followed. */
export async function openGraph(persona, personaName, { around = null, filter = null, highlight = [] } = {}) {
  const reopen = () => openGraph(persona, personaName, { around, filter, highlight });
  const openOne = (docId) => openDocument(docId, persona, null, reopen, "Graph");
  const details = el("div", { class: "graph-details", "aria-live": "polite" }, el("p", { class: "muted" }, "Click a node: a document opens; a person, project or entity lists its documents."));
  const canvas = el("div", { class: "graph-canvas", role: "img", "aria-label": `Graph of ${personaName}` });
  const summary = el("p", { class: "graph-summary muted" }, "Loading…");
  const words = el("details", { class: "graph-words" }, el("summary", {}, "The graph as a list"));
  showInPanel(around ? "Links of a document" : `${personaName} · graph`, el("div", { class: "graph" }, summary, legend(), canvas, details, words));
  document.body.classList.add("panel-graph");
  let graph;
  try {
    graph = await getJSON(graphUrl(persona, { around, filter }));
  } catch (error) {
    summary.textContent = error.message || String(error);
    summary.classList.add("error");
    return;
  }
  if (!document.contains(canvas)) return; // the panel moved on meanwhile
  summary.textContent = counts(graph) + (graph.truncated ? ` · the ${(graph.nodes || []).filter((n) => n.kind === "document").length} best-connected of ${graph.documents} documents` : "");
  if (highlight.length) summary.append(el("span", { class: "followed-note" }, ` · ${highlight.length} link${highlight.length === 1 ? "" : "s"} the answer followed, highlighted`));
  canvas.dataset.nodes = String((graph.nodes || []).length);
  drawGraph(canvas, graph, {
    highlight,
    onNode: (data) => (data.kind === "document" ? openOne(data.docId) : nodeDetails(details, graph, data, openOne)),
  });
  words.append(
    el(
      "ul",
      {},
      describeGraph(graph).map(({ node, links }) =>
        el(
          "li",
          { "data-node": node.id },
          node.kind === "document" ? el("button", { type: "button", class: "link", onclick: () => openOne(node.doc_id) }, node.label) : el("span", {}, `${KIND_NAMES[node.kind]}: ${node.label}`),
          links.length ? el("span", { class: "muted" }, ` → ${links.join("; ")}`) : null,
        ),
      ),
    ),
  );
}
