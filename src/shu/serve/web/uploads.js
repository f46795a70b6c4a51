// Files brought to the current persona: dropped on the chat or the document panel, or chosen with
// the Upload button; sent to POST /v1/personas/{p}/documents, then the ingest job followed until it
// ends, each refused or failed file shown with its one-line reason. Delete and download a document.

import { ApiError, getJSON, request } from "./api.js";
import { append, clear, el } from "./dom.js";
import { refreshBrowser } from "./panel.js";

const POLL_MS = 700;
const ACTIVE = new Set(["queued", "running"]);

const uploads = { current: () => null, box: null, me: null };

/** `current()`: the chosen persona's record (slug, display_name). */
export function setupUploads(current) {
  uploads.current = current;
  uploads.box = document.getElementById("uploads");
  const input = document.getElementById("upload-input");
  const button = document.getElementById("upload");
  button.addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    const files = Array.from(input.files || []);
    input.value = "";
    if (files.length) send(files);
  });
  for (const zone of [document.getElementById("chat"), document.getElementById("panel")]) {
    zone.addEventListener("dragover", (event) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
      zone.classList.add("dropping");
    });
    zone.addEventListener("dragleave", () => zone.classList.remove("dropping"));
    zone.addEventListener("drop", (event) => {
      zone.classList.remove("dropping");
      if (!hasFiles(event)) return;
      event.preventDefault();
      const files = Array.from(event.dataTransfer.files || []);
      if (files.length) send(files);
    });
  }
}

/** Enable the Upload button when a persona is chosen; hide it where the caller may not write. */
export async function enableUploads(enabled) {
  const button = document.getElementById("upload");
  button.disabled = !enabled;
  uploads.me = null;
  try {
    uploads.me = await getJSON("/v1/me", { quiet: true });
  } catch {
    uploads.me = null; // unknown: the server decides, and its refusal is shown
  }
  const persona = uploads.current();
  button.hidden = Boolean(persona) && !mayWrite(persona.slug);
}

/** Whether the caller may change the persona's documents, as /v1/me says (admin: everywhere). */
export function mayWrite(persona) {
  const me = uploads.me;
  if (!me) return true;
  return Boolean(me.admin) || me.writes === null || me.writes === undefined || (Array.isArray(me.writes) && me.writes.includes(persona));
}

function hasFiles(event) {
  return Boolean(event.dataTransfer) && Array.from(event.dataTransfer.types || []).includes("Files");
}

function card(title) {
  const status = el("p", { class: "upload-status" }, "Sending…");
  const list = el("ul", { class: "upload-files" });
  const close = el("button", { type: "button", class: "ghost", onclick: () => node.remove() }, "Dismiss");
  const node = el("section", { class: "upload-card" }, el("h3", {}, title), status, list, close);
  uploads.box.hidden = false;
  uploads.box.prepend(node);
  return { status, list };
}

function fileLine(list, name, text, bad) {
  append(list, el("li", { class: bad ? "upload-bad" : "upload-ok" }, el("strong", {}, name), `: ${text}`));
}

async function send(files) {
  const persona = uploads.current();
  if (!persona) return;
  const names = files.map((f) => f.name);
  const { status, list } = card(`Upload to ${persona.display_name || persona.slug}: ${names.join(", ")}`);
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  let body;
  try {
    const response = await request(`/v1/personas/${encodeURIComponent(persona.slug)}/documents`, { method: "POST", body: form });
    body = await response.json();
  } catch (error) {
    status.textContent = `Not uploaded: ${error instanceof ApiError ? error.message : "network error"}`;
    status.classList.add("upload-bad");
    return;
  }
  for (const refused of body.refused || []) fileLine(list, refused.name || "(no name)", refused.reason, true);
  const stored = (body.stored || []).map((s) => s.stored_as);
  status.textContent = `Stored ${stored.join(", ")}; indexing…`;
  await follow(body.job, status, list, persona.slug);
}

async function follow(job, status, list, persona) {
  let current = job;
  while (current && ACTIVE.has(current.status)) {
    const done = current.total ? ` ${current.processed} of ${current.total}` : "";
    status.textContent = `Indexing (${current.stage || current.status}${done}, ${Math.round(current.percent || 0)}%)…`;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    try {
      current = await getJSON(`/v1/jobs/${encodeURIComponent(current.id)}`, { quiet: true });
    } catch (error) {
      status.textContent = `Progress unavailable: ${error instanceof ApiError ? error.message : "network error"}`;
      return;
    }
  }
  const files = (current && current.files) || [];
  for (const file of files.filter((f) => f.status === "failed" || f.status === "skipped")) {
    fileLine(list, file.file, file.message || file.status, true);
  }
  const added = files.filter((f) => f.status === "ingested").map((f) => f.doc_id || f.file);
  for (const docId of added) fileLine(list, docId, "indexed", false);
  const failed = current && current.status !== "done" ? ` (${current.status}${current.error ? `: ${current.error}` : ""})` : "";
  status.textContent = `Done${failed}: ${added.length} document${added.length === 1 ? "" : "s"} indexed.`;
  status.classList.add(failed ? "upload-bad" : "upload-done");
  refreshBrowser(persona);
  changed(persona);
}

/** Tell the page a persona's documents changed (the job chip and the document count follow). */
function changed(persona) {
  document.dispatchEvent(new CustomEvent(DOCUMENTS_CHANGED, { detail: { persona } }));
}

export const DOCUMENTS_CHANGED = "shu:documents-changed";

/** Delete a document of the persona after a confirmation; true once deleted. */
export async function deleteDocument(doc, persona) {
  if (!window.confirm(`Delete “${doc.title || doc.id}”? Its file and its original are removed from the server.`)) return false;
  await request(`/v1/documents/${encodeURIComponent(doc.id)}?persona=${encodeURIComponent(persona)}`, { method: "DELETE" });
  changed(persona);
  return true;
}

/** Download the document's original file (with the key, so through fetch and a blob URL). */
export async function downloadOriginal(doc, persona) {
  const response = await request(`/v1/documents/${encodeURIComponent(doc.id)}/original?persona=${encodeURIComponent(persona)}`);
  const blob = await response.blob();
  const link = el("a", { href: URL.createObjectURL(blob), download: fileName(response, doc.id) });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

function fileName(response, fallback) {
  const header = response.headers.get("content-disposition") || "";
  const encoded = /filename\*=utf-8''([^;]+)/i.exec(header);
  if (encoded) {
    try {
      return decodeURIComponent(encoded[1]);
    } catch {
      /* fall through */
    }
  }
  const plain = /filename="([^"]+)"/i.exec(header);
  return plain ? plain[1] : fallback;
}

export function clearUploads() {
  if (uploads.box) clear(uploads.box).hidden = true;
}
