// The side panel: one document (its sections, the cited one highlighted, a star) or a persona's
// documents a page at a time. On a phone it takes the lower part of the screen, below the chat.

import { getJSON, sendFeedback } from "./api.js";
import { append, clear, el, icon, linkOrText, sectionLabel } from "./dom.js";
import { describeGraph, drawGraph } from "./graph_view.js";
import { renderMarkdown } from "./markdown.js";
import { deleteDocument, downloadOriginal, mayWrite } from "./uploads.js";

const PAGE_SIZE = 20;

const panel = {
  root: null,
  title: null,
  body: null,
  back: null,
  returnTo: null, // what "Back" shows (the document list a document was opened from)
  loading: 0, // the latest load wins
  lastFocus: null,
  browsing: null, // {persona, personaName, offset} while the document list is shown
};

export function setupPanel() {
  panel.root = document.getElementById("panel");
  panel.title = document.getElementById("panel-title");
  panel.body = document.getElementById("panel-body");
  panel.back = document.getElementById("panel-back");
  append(panel.back, icon("back"), el("span", { class: "back-label" }, "Documents"));
  append(document.getElementById("panel-close"), icon("close"));
  document.getElementById("panel-close").addEventListener("click", closePanel);
  panel.back.addEventListener("click", () => panel.returnTo && panel.returnTo());
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !panel.root.hidden && !document.querySelector("dialog[open]")) closePanel();
  });
}

function showPanel(title) {
  if (panel.root.hidden) panel.lastFocus = document.activeElement;
  panel.root.hidden = false;
  panel.browsing = null;
  document.body.classList.add("panel-open");
  document.body.classList.remove("panel-graph"); // the graph view widens the panel again itself
  panel.title.textContent = title;
  panel.body.scrollTop = 0;
}

/** Show `content` (built by the caller) in the panel under `title`; a later load replaces it. */
export function showInPanel(title, content) {
  showPanel(title);
  panel.returnTo = null;
  panel.back.hidden = true;
  panel.loading += 1;
  append(clear(panel.body), content);
}

export function closePanel() {
  panel.root.hidden = true;
  document.body.classList.remove("panel-open", "panel-graph");
  panel.loading += 1;
  if (panel.lastFocus && document.contains(panel.lastFocus)) panel.lastFocus.focus();
}

function loadingState() {
  panel.loading += 1;
  clear(panel.body).append(el("p", { class: "muted loading" }, el("span", { class: "spinner", "aria-hidden": "true" }), "Loading…"));
  return panel.loading;
}

function failed(error) {
  clear(panel.body).append(el("p", { class: "error", role: "alert" }, error.message || String(error)));
}

/** Open a document of `persona` in the panel; `cited` is {key, section_path} to highlight;
 * `returnTo` is what Back shows again (`backLabel` names it). */
export async function openDocument(docId, persona, cited = null, returnTo = null, backLabel = "Documents") {
  showPanel("Document");
  panel.returnTo = returnTo;
  panel.back.hidden = !returnTo;
  panel.back.querySelector(".back-label").textContent = backLabel;
  const ticket = loadingState();
  try {
    const view = await getJSON(`/v1/documents/${encodeURIComponent(docId)}?persona=${encodeURIComponent(persona)}`);
    if (ticket !== panel.loading) return;
    renderDocument(view, persona, cited);
    sendFeedback({ persona, kind: "opened", doc_id: docId }, { quiet: true });
  } catch (error) {
    if (ticket === panel.loading) failed(error);
  }
}

function isCited(section, cited) {
  if (!cited) return false;
  return (cited.key && section.citation_key === cited.key) || (cited.section_path && section.section_path === cited.section_path);
}

function starButton(doc, persona) {
  const label = el("span", {}, "Star");
  const button = el("button", { type: "button", class: "star", "aria-pressed": "false", title: "Star this document" }, icon("star"), label);
  const note = el("span", { class: "feedback-note", role: "status" });
  button.addEventListener("click", async () => {
    const starred = button.getAttribute("aria-pressed") !== "true";
    button.setAttribute("aria-pressed", String(starred));
    label.textContent = starred ? "Starred" : "Star";
    const outcome = await sendFeedback({ persona, kind: starred ? "star" : "unstar", doc_id: doc.id });
    note.textContent = outcome === "sent" || outcome === "unavailable" ? "" : `Not saved: ${outcome}`;
  });
  return el("span", { class: "star-wrap" }, button, note);
}

function documentActions(doc, persona) {
  const note = el("span", { class: "feedback-note", role: "status" });
  const failedWith = (error) => {
    note.textContent = error && error.message ? error.message : "network error";
  };
  const download = el(
    "button",
    { type: "button", class: "ghost doc-download", onclick: () => downloadOriginal(doc, persona).catch(failedWith) },
    "Download original",
  );
  const remove = el(
    "button",
    {
      type: "button",
      class: "ghost doc-delete",
      onclick: async () => {
        try {
          if (!(await deleteDocument(doc, persona))) return;
        } catch (error) {
          failedWith(error);
          return;
        }
        const back = panel.returnTo;
        if (back) back();
        else closePanel();
      },
    },
    "Delete",
  );
  return el("div", { class: "doc-actions" }, download, mayWrite(persona) ? remove : null, note);
}

/** Show the persona's document list again if it is the one shown (after an upload). */
export function refreshBrowser(persona) {
  const shown = panel.browsing;
  if (shown && shown.persona === persona && !panel.root.hidden) openBrowser(shown.persona, shown.personaName, shown.offset);
}

function documentMeta(doc) {
  const items = [];
  if (doc.date) items.push(el("span", { class: "meta-item" }, doc.date));
  if (doc.type) items.push(el("span", { class: "meta-item" }, doc.type));
  if (doc.source_url) {
    items.push(el("span", { class: "meta-item source-url" }, "Source: ", linkOrText(doc.source_url)));
  }
  if (doc.license) items.push(el("span", { class: "meta-item license" }, `Licence: ${doc.license}`));
  items.push(el("span", { class: "meta-item muted" }, doc.id));
  return el("div", { class: "doc-meta" }, items);
}

function sectionNode(section, title, cited) {
  const text = renderMarkdown(el("div", { class: "section-text" }), section.text);
  const node = el(
    "section",
    { class: cited ? "doc-section cited" : "doc-section", "data-key": section.citation_key },
    el(
      "h3",
      { class: "section-path" },
      sectionLabel(section.section_path, title),
      cited ? el("mark", { class: "cited-label" }, "Cited") : null,
    ),
    cited ? el("mark", { class: "cited-text" }, text) : text,
  );
  return node;
}

function renderDocument(view, persona, cited) {
  const doc = view.document || {};
  panel.title.textContent = doc.title || doc.id || "Document";
  const head = el(
    "header",
    { class: "doc-head" },
    el("h2", { class: "doc-title" }, doc.title || doc.id),
    documentMeta(doc),
    starButton(doc, persona),
    documentActions(doc, persona),
  );
  const profile = view.profile && view.profile.synopsis ? el("p", { class: "synopsis" }, view.profile.synopsis) : null;
  const sections = (view.sections || []).map((s) => sectionNode(s, doc.title, isCited(s, cited)));
  const relationships = (view.relationships || []).length
    ? el(
        "section",
        { class: "relationships" },
        el("h3", {}, "Related"),
        el(
          "ul",
          {},
          view.relationships.map((r) =>
            el(
              "li",
              {},
              el("span", { class: "muted" }, `${r.type} `),
              el("button", { type: "button", class: "link", onclick: () => openDocument(r.target, persona) }, r.target),
            ),
          ),
        ),
      )
    : null;
  clear(panel.body).append(head);
  const empty = el("p", { class: "muted" }, "This document has no text.");
  const links = el("section", { class: "neighbourhood", hidden: true }, el("h3", {}, "Links"));
  append(panel.body, profile, links, el("div", { class: "doc-sections" }, sections.length ? sections : empty), relationships);
  showNeighbourhood(links, doc.id, persona, panel.loading);
  const target = panel.body.querySelector(".doc-section.cited");
  if (target) target.scrollIntoView({ block: "start" });
}

/** The document's one-hop neighbourhood beside it: what it links, what links it, whom and what
 * it names (a small graph; a linked document opens on a click). Nothing shows when it has none. */
async function showNeighbourhood(box, docId, persona, ticket) {
  let graph;
  try {
    graph = await getJSON(`/v1/personas/${encodeURIComponent(persona)}/graph?around=${encodeURIComponent(docId)}`, { quiet: true });
  } catch {
    return; // the document reads the same without it
  }
  if (ticket !== panel.loading || (graph.nodes || []).length < 2) return;
  const canvas = el("div", { class: "graph-canvas small", role: "img", "aria-label": "The document's links" });
  canvas.dataset.nodes = String(graph.nodes.length);
  const names = describeGraph(graph).filter(({ node }) => node.doc_id !== docId);
  const list = el(
    "ul",
    { class: "neighbours" },
    names.map(({ node }) =>
      el(
        "li",
        { "data-node": node.id },
        node.kind === "document"
          ? el("button", { type: "button", class: "link", onclick: () => openDocument(node.doc_id, persona) }, node.label)
          : el("span", {}, node.label),
        el("span", { class: "muted" }, ` · ${node.kind}`),
      ),
    ),
  );
  box.hidden = false;
  append(box, canvas, list);
  drawGraph(canvas, graph, { compact: true, onNode: (data) => data.kind === "document" && data.docId !== docId && openDocument(data.docId, persona) });
}

/** The persona's documents, a page at a time; a click opens one (Back returns to this page). */
export async function openBrowser(persona, personaName, offset = 0) {
  showPanel(`${personaName} · documents`);
  panel.browsing = { persona, personaName, offset };
  panel.returnTo = null;
  panel.back.hidden = true;
  const ticket = loadingState();
  try {
    const page = await getJSON(`/v1/personas/${encodeURIComponent(persona)}/documents?offset=${offset}&limit=${PAGE_SIZE}`);
    if (ticket !== panel.loading) return;
    renderBrowser(page, persona, personaName);
  } catch (error) {
    if (ticket === panel.loading) failed(error);
  }
}

function renderBrowser(page, persona, personaName) {
  const back = () => openBrowser(persona, personaName, page.offset);
  const items = (page.documents || []).map((doc) =>
    el(
      "li",
      {},
      el(
        "button",
        { type: "button", class: "doc-item", "data-doc-id": doc.id, onclick: () => openDocument(doc.id, persona, null, back) },
        el("span", { class: "doc-item-title" }, doc.title || doc.id),
        el("span", { class: "doc-item-meta" }, [doc.date, doc.type, doc.summary].filter(Boolean).join(" · ") || doc.id),
      ),
    ),
  );
  const last = page.offset + (page.documents || []).length;
  const pageButton = (label, disabled, offset) =>
    el("button", { type: "button", class: "ghost", disabled, onclick: () => openBrowser(persona, personaName, offset) }, label);
  const pager = el(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    pageButton("Previous", page.offset <= 0, Math.max(0, page.offset - page.limit)),
    el("span", { class: "muted" }, page.total ? `${page.offset + 1}–${last} of ${page.total}` : "No documents"),
    pageButton("Next", last >= page.total, page.offset + page.limit),
  );
  clear(panel.body).append(el("ul", { class: "doc-list" }, items), pager);
}
