// The admin's users page: who signs in, which personas each reads and writes, add a user, lock
// and unlock (the /v1/admin/users routes; an admin's session or key only). Names and personas
// are shown as text only.

import { ApiError, getJSON, postJSON, request } from "./api.js";
import { append, clear, el } from "./dom.js";

const $ = (id) => document.getElementById(id);

function personas(text) {
  return text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
}

function say(message) {
  $("users-message").textContent = message;
}

function failed(error) {
  say(error instanceof ApiError ? error.message : `Could not reach the server (${error.message || error}).`);
}

async function change(path, body, method = "PUT") {
  try {
    const response = await request(path, { method, body });
    const login = await response.json();
    say(`Saved ${login.name}.`);
    await list();
  } catch (error) {
    failed(error);
  }
}

function row(login) {
  const name = encodeURIComponent(login.name);
  const reads = el("input", { class: "users-reads", value: login.reads.join(", "), placeholder: "reads: persona, …", "aria-label": `Reads of ${login.name}`, spellcheck: "false" });
  const writes = el("input", { class: "users-writes", value: login.writes.join(", "), placeholder: "writes: persona, …", "aria-label": `Writes of ${login.name}`, spellcheck: "false" });
  const locked = login.locked || Boolean(login.locked_until);
  const save = () => change(`/v1/admin/users/${name}`, { reads: personas(reads.value), writes: personas(writes.value) });
  const toggle = () => change(`/v1/admin/users/${name}/${locked ? "unlock" : "lock"}`, undefined, "POST");
  return el(
    "li",
    { class: "users-row", "data-user": login.name },
    el("span", { class: "users-name" }, login.name, login.admin ? " (admin)" : "", locked ? " — locked" : ""),
    reads,
    writes,
    el("button", { type: "button", class: "ghost users-save", onclick: save }, "Save"),
    el("button", { type: "button", class: "ghost users-lock", onclick: toggle }, locked ? "Unlock" : "Lock"),
  );
}

async function list() {
  const shown = clear($("users-list"));
  try {
    const logins = await getJSON("/v1/admin/users");
    append(shown, logins.map(row));
  } catch (error) {
    failed(error);
  }
}

async function add(event) {
  event.preventDefault();
  const body = {
    name: $("user-name").value.trim(),
    password: $("user-password").value,
    reads: personas($("user-reads").value),
    writes: personas($("user-writes").value),
    admin: $("user-admin").checked,
  };
  try {
    const login = await postJSON("/v1/admin/users", body);
    say(`Added ${login.name}.`);
    for (const id of ["user-name", "user-password", "user-reads", "user-writes"]) $(id).value = "";
    $("user-admin").checked = false;
    await list();
  } catch (error) {
    failed(error);
  }
}

/** Show the Users button to an admin (as /v1/me says) on a server where users sign in. */
export function offerUsers(show) {
  $("users-button").hidden = !show;
}

export function setupUsers() {
  const dialog = $("users-dialog");
  $("users-form").addEventListener("submit", add);
  $("users-close").addEventListener("click", () => dialog.close());
  $("users-button").addEventListener("click", async () => {
    say("Who signs in, and which personas each reads and writes (names separated by commas).");
    if (!dialog.open) dialog.showModal();
    await list();
  });
}
