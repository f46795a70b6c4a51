// Shu's chat page: pick a persona, ask, read the cited answer as it is written, open what it
// cites. Plain ES modules, same-origin API only; text from documents and answers is only ever
// inserted as text (see dom.js).

import { ApiError, askForKey, authRequired, getJSON, request, serverEvents, setAuthRequired, setKeyPrompt, storedKey } from "./api.js";
import { createTurn } from "./answer.js";
import { append, clear, el, formatSeconds, icon } from "./dom.js";
import { loadConversation, openConversations, rememberConversation, rememberedConversation, startConversation } from "./conversations.js";
import { closePanel, openBrowser, openDocument, setupPanel } from "./panel.js";
import { DOCUMENTS_CHANGED, enableUploads, setupUploads } from "./uploads.js";
import { currentSession, offerSignIn, promptSignIn, setupSignIn, signInOffered } from "./signin.js";
import { offerUsers, setupUsers } from "./users.js";
import { currentFilter, loadFilterChoices, setupFilters } from "./filters.js";
import { openGraph } from "./graph.js";

const PERSONA_STORAGE = "shu.persona";
const JOBS_EVERY_MS = 4000;
const ACTIVE_JOBS = new Set(["running", "queued", "pending", "started"]);

const state = {
  personas: [],
  persona: null, // the chosen persona's record
  asking: null, // the AbortController of the answer being written
  conversation: null, // the id of the conversation the thread shows (started with its first question)
};

const $ = (id) => document.getElementById(id);

function remembered(name) {
  try {
    return localStorage.getItem(name);
  } catch {
    return null;
  }
}

function remember(name, value) {
  try {
    localStorage.setItem(name, value);
  } catch {
    /* storage disabled */
  }
}

// -- banner (page-level errors) -----------------------------------------------------------------

function showBanner(message) {
  const banner = $("banner");
  banner.hidden = !message;
  clear(banner);
  if (!message) return;
  const dismiss = el("button", { type: "button", class: "ghost", onclick: () => showBanner("") }, "Dismiss");
  append(banner, el("span", {}, message), dismiss);
}

function messageOf(error) {
  if (error instanceof ApiError) return error.message;
  if (error && error.name === "AbortError") return "Stopped.";
  return `Could not reach the server (${error && error.message ? error.message : error}).`;
}

// -- auth ------------------------------------------------------------------------------------------

function setupAuth() {
  const dialog = $("auth-dialog");
  const input = $("auth-key");
  let settle = null;
  const done = (key) => {
    if (dialog.open) dialog.close();
    if (settle) settle(key);
    settle = null;
  };
  $("auth-form").addEventListener("submit", (event) => {
    event.preventDefault();
    done(input.value.trim() || null);
  });
  $("auth-cancel").addEventListener("click", () => done(null));
  dialog.addEventListener("cancel", () => done(null));
  const keyPrompt = (message) => {
    $("auth-message").textContent = message || "This server needs an API key. It is kept in this browser only.";
    input.value = "";
    if (!dialog.open) dialog.showModal();
    input.focus();
    return new Promise((resolve) => {
      settle = resolve;
    });
  };
  setKeyPrompt((message) => (signInOffered() ? promptSignIn(message, keyPrompt) : keyPrompt(message)));
  setupSignIn();
  setupUsers();
  $("key-button").prepend(icon("key"));
  $("key-button").addEventListener("click", async () => {
    const key = await askForKey("Enter the API key to use from now on.");
    if (key) {
      await loadPersonas();
      restartJobs();
    }
  });
}

async function checkHealth() {
  try {
    const health = await getJSON("/healthz");
    setAuthRequired(health && health.auth === true);
    offerSignIn(health && health.sign_in === true);
    if (health && health.version) document.title = `Shu ${health.version}`;
  } catch {
    setAuthRequired(false); // the API calls will say what is wrong
  }
  $("key-button").hidden = !authRequired();
  if (authRequired() && signInOffered() && (await currentSession())) return;
  if (authRequired() && !storedKey()) await askForKey("");
}

// -- personas ------------------------------------------------------------------------------------

async function loadPersonas() {
  const select = $("persona");
  try {
    state.personas = await getJSON("/v1/personas");
  } catch (error) {
    showBanner(`Could not load the personas: ${messageOf(error)}`);
    $("key-button").hidden = !authRequired();
    return;
  }
  showBanner("");
  $("key-button").hidden = !authRequired();
  if (authRequired()) showUser();
  clear(select);
  for (const p of state.personas) select.append(el("option", { value: p.slug }, `${p.display_name || p.slug} (${p.documents})`));
  const saved = remembered(PERSONA_STORAGE);
  const chosen = state.personas.find((p) => p.slug === saved) || state.personas[0] || null;
  select.disabled = !state.personas.length;
  $("browse").disabled = !chosen;
  $("graph").disabled = !chosen;
  if (chosen) select.value = chosen.slug;
  else select.append(el("option", {}, "No personas"));
  choosePersona(chosen);
}

async function showUser() {
  try {
    const me = await getJSON("/v1/me", { quiet: true });
    $("key-label").textContent = me && me.user ? me.user : "API key";
    offerUsers(Boolean(me && me.admin && signInOffered()));
    $("key-button").title = me && me.user ? `Signed in as ${me.user}${me.admin ? " (admin)" : ""}: change the key` : "Change the API key";
  } catch {
    $("key-label").textContent = "API key";
  }
}

function choosePersona(persona) {
  state.persona = persona;
  if (persona) remember(PERSONA_STORAGE, persona.slug);
  $("conversations").disabled = !persona;
  $("new-conversation").disabled = !persona;
  enableUploads(Boolean(persona));
  loadFilterChoices(persona ? persona.slug : "");
  showConversation(null);
  if (persona) rememberedConversation(persona.slug).then((kept) => state.persona === persona && showConversation(kept));
}

// -- conversations -------------------------------------------------------------------------------

/** Show a kept conversation's turns (null: an empty thread, a new conversation on the next question). */
function showConversation(conversation) {
  state.conversation = conversation ? conversation.id : null;
  clear($("thread"));
  const persona = state.persona;
  for (const kept of conversation ? conversation.turns : []) {
    const turn = createTurn({ question: kept.question, persona: persona.slug, personaName: persona.display_name || persona.slug, onCite: citeFor(persona) });
    $("thread").append(turn.node);
    turn.answered(
      { question: kept.question, text: kept.answer, citations: kept.citations, insufficient: kept.insufficient, standalone_question: kept.standalone },
      { restored: true },
    );
  }
  renderIntro();
  $("scroller").scrollTop = $("scroller").scrollHeight;
}

function newConversation() {
  if (state.persona) rememberConversation(state.persona.slug, "");
  closePanel();
  showConversation(null);
  $("question").focus();
}

async function openConversation(id) {
  try {
    const conversation = await loadConversation(id);
    rememberConversation(state.persona.slug, conversation.id);
    closePanel();
    showConversation(conversation);
  } catch (error) {
    showBanner(`Could not open the conversation: ${messageOf(error)}`);
  }
}

function listConversations() {
  const persona = state.persona;
  if (!persona) return;
  openConversations(persona.slug, persona.display_name || persona.slug, state.conversation, { onOpen: openConversation, onNew: newConversation });
}

function citeFor(persona) {
  return (citation) => openDocument(citation.doc_id, persona.slug, { key: citation.key, section_path: citation.section_path });
}

/** The persona's description: its first paragraph that is not a heading. */
function firstParagraph(markdown) {
  const paragraph = String(markdown || "")
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .find((p) => p && !p.startsWith("#"));
  if (!paragraph) return "";
  return paragraph.length > 320 ? `${paragraph.slice(0, 317).trimEnd()}…` : paragraph;
}

function renderIntro() {
  const intro = clear($("intro"));
  const persona = state.persona;
  intro.hidden = $("thread").children.length > 0;
  if (!persona) {
    intro.append(el("p", { class: "muted" }, "No personas yet: ingest a folder of documents with `shu ingest`, then reload."));
    return;
  }
  append(
    intro,
    el("h1", {}, persona.display_name || persona.slug),
    el(
      "p",
      { class: "intro-text" },
      firstParagraph(persona.description) || "Ask a question; every answer cites the documents it rests on.",
    ),
    el(
      "p",
      { class: "intro-meta" },
      `${persona.documents} document${persona.documents === 1 ? "" : "s"} · `,
      el("button", { type: "button", class: "link", onclick: browse }, "browse them"),
    ),
  );
}

/** The persona's graph, of the documents the filter row keeps; `highlight`: links an answer followed. */
function showGraph(highlight = []) {
  const persona = state.persona;
  if (!persona) return;
  const name = persona.display_name || persona.slug;
  openGraph(persona.slug, name, { filter: currentFilter(), highlight: Array.isArray(highlight) ? highlight : [] });
}

function browse() {
  if (state.persona) openBrowser(state.persona.slug, state.persona.display_name || state.persona.slug);
}

// -- asking --------------------------------------------------------------------------------------

function nearBottom(scroller) {
  return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 120;
}

function followScroll(action) {
  const scroller = $("scroller");
  const follow = nearBottom(scroller);
  action();
  if (follow) scroller.scrollTop = scroller.scrollHeight;
}

function setAsking(controller) {
  state.asking = controller;
  const button = $("ask-button");
  button.textContent = controller ? "Stop" : "Ask";
  button.setAttribute("aria-label", controller ? "Stop the answer" : "Ask");
  button.classList.toggle("stop", Boolean(controller));
  document.body.classList.toggle("asking", Boolean(controller));
}

async function ask(question) {
  const persona = state.persona;
  const turn = createTurn({ question, persona: persona.slug, personaName: persona.display_name || persona.slug, onCite: citeFor(persona), onGraph: showGraph });
  $("intro").hidden = true;
  $("thread").append(turn.node);
  $("scroller").scrollTop = $("scroller").scrollHeight;
  const controller = new AbortController();
  setAsking(controller);
  let text = "";
  let ended = false;
  try {
    if (!state.conversation) state.conversation = await startConversation(persona.slug);
    const response = await request("/v1/ask", {
      method: "POST",
      body: { question, persona: persona.slug, stream: true, trace: true, conversation_id: state.conversation, filter: currentFilter() },
      signal: controller.signal,
    });
    for await (const { name, data } of serverEvents(response)) {
      if (name === "piece" && data && typeof data.text === "string") {
        text += data.text;
        followScroll(() => turn.streamed(text));
      } else if (name === "progress" && data) {
        turn.progress(data);
      } else if (name === "reset") {
        text = "";
        turn.reset(data && data.reason);
      } else if (name === "answer" && data) {
        followScroll(() => turn.answered(data));
        ended = true;
      } else if (name === "error") {
        turn.failed((data && data.detail) || "The answer failed.");
        ended = true;
      }
    }
    if (!ended) turn.failed("The answer stopped before it was finished.");
  } catch (error) {
    turn.failed(messageOf(error));
  } finally {
    setAsking(null);
  }
}

function setupComposer() {
  const form = $("ask-form");
  const input = $("question");
  const grow = () => {
    input.style.height = "auto";
    input.style.height = `${Math.min(input.scrollHeight, 200)}px`;
  };
  input.addEventListener("input", grow);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      if (!state.asking) form.requestSubmit(); // Enter never stops an answer: the Stop button does
    }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (state.asking) {
      state.asking.abort();
      return;
    }
    const question = input.value.trim();
    if (!question || !state.persona) return;
    input.value = "";
    grow();
    ask(question);
  });
  $("persona").addEventListener("change", (event) => {
    choosePersona(state.personas.find((p) => p.slug === event.target.value) || null);
    closePanel();
  });
  $("browse").prepend(icon("docs"));
  $("graph").prepend(icon("graph"));
  $("graph").addEventListener("click", showGraph);
  $("conversations").prepend(icon("chats")); // at phone width the icon is all that shows: the label stays for screen readers
  $("new-conversation").prepend(icon("plus"));
  $("upload").prepend(icon("upload"));
  $("browse").addEventListener("click", browse);
  $("conversations").addEventListener("click", listConversations);
  $("new-conversation").addEventListener("click", newConversation);
}

// -- jobs ----------------------------------------------------------------------------------------

const jobs = { timer: 0, stopped: false, polling: false };

function jobLine(job) {
  const done = Number.isFinite(job.processed) && Number.isFinite(job.total) && job.total ? ` ${job.processed}/${job.total}` : "";
  const percent = Number.isFinite(job.percent) ? ` · ${Math.round(job.percent)}%` : "";
  const eta = formatSeconds(job.eta_s);
  const label = `${job.kind || "job"}${job.stage ? ` · ${job.stage}` : ""}${done}${percent}${eta ? ` · ${eta} left` : ""}`;
  const bar = el("progress", { max: 100, value: Number.isFinite(job.percent) ? Math.max(0, Math.min(100, job.percent)) : null });
  const title = [job.id, job.status, job.failed ? `${job.failed} failed` : "", job.error || ""].filter(Boolean).join(" · ");
  return el(
    "span",
    { class: `job ${job.status}`, title },
    el("span", { class: "job-status" }, job.status),
    el("span", { class: "job-label" }, label),
    bar,
  );
}

function renderJobs(list) {
  const box = $("jobs");
  const active = list.filter((job) => ACTIVE_JOBS.has(job.status));
  box.hidden = !active.length;
  clear(box);
  if (!active.length) return;
  box.append(jobLine(active[0]));
  if (active.length > 1) box.append(el("span", { class: "job-more" }, `+${active.length - 1} more`));
}

/** Whether this key may see the jobs (an admin key, or a server without keys), as /v1/me says:
 * the page asks only what the key may see, so a read-only key never meets a 403 for them. */
async function mayListJobs() {
  try {
    const me = await getJSON("/v1/me", { quiet: true });
    return Boolean(me && me.admin);
  } catch {
    return false;
  }
}

async function pollJobs() {
  jobs.timer = 0;
  if (jobs.stopped || jobs.polling) return; // one loop: a poll asked for while one runs is that one
  jobs.polling = true;
  if (document.visibilityState === "visible") {
    try {
      const body = await getJSON("/v1/jobs?active=true&limit=20", { quiet: true });
      renderJobs(Array.isArray(body && body.jobs) ? body.jobs : []);
    } catch (error) {
      $("jobs").hidden = true;
      // 403: not an admin key; 404/405: no jobs on this server. Either way, not until the key changes.
      jobs.stopped = error instanceof ApiError && [403, 404, 405].includes(error.status);
    }
  }
  jobs.polling = false;
  if (!jobs.stopped) jobs.timer = setTimeout(pollJobs, JOBS_EVERY_MS);
}

async function restartJobs() {
  clearTimeout(jobs.timer);
  jobs.timer = 0;
  jobs.stopped = true; // until /v1/me says the key may see them
  jobs.stopped = !(await mayListJobs());
  if (jobs.stopped) $("jobs").hidden = true;
  else pollJobs();
}

/** After an upload or a delete: the jobs now (not at the next poll), and the personas' counts. */
async function documentsChanged() {
  if (!jobs.stopped && !jobs.polling) {
    clearTimeout(jobs.timer);
    pollJobs();
  }
  try {
    const fresh = await getJSON("/v1/personas", { quiet: true });
    if (!Array.isArray(fresh)) return;
    state.personas = fresh;
    for (const option of $("persona").options) {
      const p = fresh.find((one) => one.slug === option.value);
      if (p) option.textContent = `${p.display_name || p.slug} (${p.documents})`;
    }
    const chosen = state.persona && fresh.find((p) => p.slug === state.persona.slug);
    if (chosen) state.persona = chosen;
  } catch {
    // the counts stay as they were; the next load has them
  }
}

function startJobs() {
  restartJobs();
  document.addEventListener(DOCUMENTS_CHANGED, documentsChanged);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && !jobs.timer && !jobs.stopped) pollJobs();
  });
}

// -- start ---------------------------------------------------------------------------------------

async function start() {
  setupPanel();
  setupAuth();
  setupComposer();
  setupFilters();
  setupUploads(() => state.persona);
  await checkHealth();
  await loadPersonas();
  startJobs();
  document.body.classList.add("ready");
}

start();
