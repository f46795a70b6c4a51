// Conversations: the thread with the chosen persona is kept on the server (/v1/conversations), so
// a follow-up ("and the Team plan?") is understood from the turn before; its id is remembered per
// persona in this browser, so a reload continues it. The panel lists one's conversations.

import { getJSON, postJSON, request } from "./api.js";
import { clear, el, readableWhen } from "./dom.js";
import { showInPanel } from "./panel.js";

const STORAGE = "shu.conversation.";

function remembered(persona) {
  try {
    return localStorage.getItem(STORAGE + persona) || "";
  } catch {
    return "";
  }
}

export function rememberConversation(persona, id) {
  try {
    if (id) localStorage.setItem(STORAGE + persona, id);
    else localStorage.removeItem(STORAGE + persona);
  } catch {
    /* storage disabled: the conversation lasts as long as the page */
  }
}

/** The persona's remembered conversation with its turns, or null (none, or gone from the server). */
export async function rememberedConversation(persona) {
  const id = remembered(persona);
  if (!id) return null;
  try {
    return await getJSON(`/v1/conversations/${encodeURIComponent(id)}`, { quiet: true });
  } catch {
    rememberConversation(persona, "");
    return null;
  }
}

export async function startConversation(persona) {
  const started = await postJSON("/v1/conversations", { persona });
  rememberConversation(persona, started.id);
  return started.id;
}

export async function loadConversation(id) {
  return getJSON(`/v1/conversations/${encodeURIComponent(id)}`);
}

/** The persona's conversations in the panel: open one, start a new one, delete one. */
export async function openConversations(persona, personaName, currentId, { onOpen, onNew }) {
  const list = el("ul", { class: "doc-list conversation-list" }, el("li", { class: "muted" }, "Loading…"));
  const start = el("button", { type: "button", class: "primary", onclick: onNew }, "New conversation");
  showInPanel(`${personaName} · conversations`, [start, list]);
  let found;
  try {
    found = await getJSON(`/v1/conversations?persona=${encodeURIComponent(persona)}`);
  } catch (error) {
    clear(list).append(el("li", { class: "error" }, error.message || String(error)));
    return;
  }
  clear(list);
  if (!found.length) list.append(el("li", { class: "muted" }, "No conversations yet: ask a question."));
  for (const conversation of found) {
    const remove = async () => {
      if (!window.confirm(`Delete the conversation “${conversation.title || "Untitled"}”?`)) return;
      await request(`/v1/conversations/${encodeURIComponent(conversation.id)}`, { method: "DELETE" });
      if (conversation.id === currentId) onNew();
      else openConversations(persona, personaName, currentId, { onOpen, onNew });
    };
    const title = el("span", { class: "doc-item-title" }, conversation.title || "Untitled");
    const card = el(
      "button",
      { type: "button", class: "doc-item", "data-conversation-id": conversation.id, onclick: () => onOpen(conversation.id) },
      title,
      el("span", { class: "doc-item-meta" }, `${conversation.turns} question${conversation.turns === 1 ? "" : "s"} · ${readableWhen(conversation.updated)}`),
    );
    const row = el("li", { class: `conversation-row${conversation.id === currentId ? " current" : ""}` }, card);
    const rename = () => renameInline(row, card, conversation, title);
    row.append(
      el(
        "span",
        { class: "conversation-actions" },
        el("button", { type: "button", class: "ghost rename-conversation", "aria-label": "Rename this conversation", title: "Rename", onclick: rename }, "Rename"),
        el("button", { type: "button", class: "ghost delete-conversation", "aria-label": "Delete this conversation", title: "Delete", onclick: remove }, "Delete"),
      ),
    );
    list.append(row);
  }
}

/** The conversation's title as a field in place of its card: Enter keeps it (PATCH), Escape or
 * leaving the field puts the card back; an empty title is not sent. */
function renameInline(row, card, conversation, title) {
  const field = el("input", { type: "text", class: "rename-field", maxlength: 200, "aria-label": "New title", value: conversation.title || "" });
  let done = false;
  const finish = async (keep) => {
    if (done) return;
    done = true;
    const wanted = field.value.trim();
    if (keep && wanted && wanted !== conversation.title) {
      try {
        const saved = await request(`/v1/conversations/${encodeURIComponent(conversation.id)}`, { method: "PATCH", body: { title: wanted } });
        conversation.title = (await saved.json()).title;
        title.textContent = conversation.title;
      } catch (error) {
        title.textContent = `${conversation.title || "Untitled"} (not renamed: ${error.message || error})`;
      }
    }
    field.replaceWith(card);
  };
  field.addEventListener("keydown", (event) => {
    if (event.isComposing || (event.key !== "Enter" && event.key !== "Escape")) return;
    event.preventDefault();
    event.stopPropagation(); // Escape here ends the renaming, not the panel
    finish(event.key === "Enter");
  });
  field.addEventListener("blur", () => finish(false));
  card.replaceWith(field);
  field.focus();
  field.select();
  return row;
}
