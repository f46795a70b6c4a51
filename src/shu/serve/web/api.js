// The same-origin API: JSON requests with the API key when the server wants one, readable error
// messages, and the server-sent events of POST /v1/ask read from the fetch() body.

const KEY_STORAGE = "shu.apiKey";

let memoryKey = ""; // when localStorage is unavailable
let csrfToken = ""; // the signed-in session's (signin.js), sent with every change

const auth = {
  required: false,
  prompt: null, // (message) => Promise<string | null>, set by the page
  pending: null, // one prompt at a time, shared by every request that got a 401
};

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function setAuthRequired(required) {
  auth.required = Boolean(required);
}

export function authRequired() {
  return auth.required;
}

export function setCsrf(token) {
  csrfToken = token || "";
}

export function setKeyPrompt(prompt) {
  auth.prompt = prompt;
}

export function storedKey() {
  try {
    return localStorage.getItem(KEY_STORAGE) || "";
  } catch {
    return "";
  }
}

export function storeKey(key) {
  try {
    if (key) localStorage.setItem(KEY_STORAGE, key);
    else localStorage.removeItem(KEY_STORAGE);
  } catch {
    /* storage disabled: the key lives as long as the page */
  }
  memoryKey = key || "";
}

function currentKey() {
  return storedKey() || memoryKey;
}

/** Ask the reader for the key (once, however many requests wait for it). */
export function askForKey(message) {
  if (!auth.prompt) return Promise.resolve(null);
  if (!auth.pending) {
    auth.pending = auth.prompt(message).then((key) => {
      auth.pending = null;
      if (typeof key === "string" && key) storeKey(key);
      return key;
    });
  }
  return auth.pending;
}

/** A `detail` as a sentence: FastAPI's 422 lists become "field: message; …". */
export function describeDetail(detail) {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((item) => {
        if (item === null || typeof item !== "object") return String(item);
        const where = Array.isArray(item.loc) ? item.loc.filter((p) => p !== "body").join(".") : "";
        const message = typeof item.msg === "string" ? item.msg : JSON.stringify(item);
        return where ? `${where}: ${message}` : message;
      })
      .join("; ");
  }
  if (detail === null || detail === undefined) return "";
  return typeof detail === "object" ? JSON.stringify(detail) : String(detail);
}

async function errorFrom(response) {
  let message = "";
  try {
    const body = await response.json();
    message = describeDetail(body && body.detail);
  } catch {
    /* not JSON */
  }
  const fallback = `${response.status} ${response.statusText || "error"}`.trim();
  return new ApiError(response.status, message || fallback);
}

function headersFor(path, hasBody, method = "GET") {
  const headers = { Accept: "application/json" };
  if (hasBody) headers["Content-Type"] = "application/json";
  const key = currentKey();
  if (auth.required && key && path.startsWith("/v1/")) headers.Authorization = `Bearer ${key}`;
  if (csrfToken && !["GET", "HEAD"].includes(method)) headers["X-CSRF-Token"] = csrfToken;
  return headers;
}

/**
 * fetch() with the key; a 401 asks for the key and tries again (unless `quiet`, for background
 * requests that should fail silently). Non-2xx answers throw an ApiError with a readable message.
 */
export async function request(path, { method = "GET", body, signal, quiet = false } = {}) {
  for (let attempt = 0; ; attempt += 1) {
    const response = await fetch(path, {
      method,
      headers: headersFor(path, body !== undefined && !(body instanceof FormData), method), // a form sets its own type
      body: body === undefined || body instanceof FormData ? body : JSON.stringify(body),
      signal,
    });
    if (response.status === 401 && !quiet && attempt < 3) {
      setAuthRequired(true);
      const detail = (await errorFrom(response)).message;
      const key = await askForKey(currentKey() ? `The key was refused (${detail}).` : "");
      if (key) continue;
    }
    if (!response.ok) throw await errorFrom(response);
    return response;
  }
}

export async function getJSON(path, options) {
  const response = await request(path, options);
  return response.json();
}

export async function postJSON(path, body, options = {}) {
  const response = await request(path, { ...options, method: "POST", body });
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

/** The events of a text/event-stream body: {name, data} with `data` parsed as JSON. */
export async function* serverEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer = (buffer + value).replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) yield event;
      }
    }
    const last = parseEvent(buffer);
    if (last) yield last;
  } finally {
    reader.releaseLock();
  }
}

function parseEvent(block) {
  let name = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
  }
  if (!data.length) return null;
  try {
    return { name, data: JSON.parse(data.join("\n")) };
  } catch {
    return { name, data: null };
  }
}

/** POST /v1/feedback, fire and forget: a missing endpoint (404/405) is not an error to show. */
export async function sendFeedback(signal, { quiet = false } = {}) {
  try {
    await postJSON("/v1/feedback", signal, { quiet });
    return "sent";
  } catch (error) {
    if (error instanceof ApiError && [404, 405, 501].includes(error.status)) return "unavailable";
    return error instanceof ApiError ? error.message : "network error";
  }
}
