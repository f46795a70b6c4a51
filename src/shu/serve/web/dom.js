// DOM helpers. Every string that reaches the page goes through a text node or textContent:
// nothing here parses HTML, so text from documents and answers can never become markup.

/** el("p", {class: "x", onclick: fn}, "text", child) → a new element. Strings become text nodes. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = String(value);
    else if (name.startsWith("on")) {
      if (typeof value === "function") node.addEventListener(name.slice(2), value); // never an attribute
    } else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, ...children);
  return node;
}

/** Append children (nodes, strings as text nodes; null/false skipped). */
export function append(parent, ...children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

/** The URL when it is an absolute http(s) URL (safe to link to), else null. */
export function httpUrl(value) {
  if (typeof value !== "string" || !value.trim()) return null;
  try {
    const url = new URL(value.trim());
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** A link for http(s) URLs; anything else (javascript:, file:, junk) is plain text. */
export function linkOrText(value, label = value) {
  const href = httpUrl(value);
  if (!href) return el("span", { class: "plain-url" }, String(value));
  return el("a", { href, target: "_blank", rel: "noopener noreferrer nofollow" }, String(label));
}

export function formatNumber(value, digits = 2) {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "–";
}

export function formatSeconds(seconds) {
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) return "";
  if (seconds < 60) return `${Math.round(seconds)}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${Math.round(seconds % 60)}s`;
  return `${Math.floor(seconds / 3600)}h ${Math.round((seconds % 3600) / 60)}m`;
}

/** When something happened, as people say it: "today, 14:02", "yesterday, 09:10", "Monday,
 * 16:45" within the week, "3 May" this year, "3 May 2025" before; the ISO stamp if unreadable. */
export function readableWhen(iso, now = new Date()) {
  const when = new Date(iso);
  if (!iso || Number.isNaN(when.getTime())) return iso || "";
  const time = when.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  const day = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((day(now) - day(when)) / 86_400_000);
  if (days === 0) return `today, ${time}`;
  if (days === 1) return `yesterday, ${time}`;
  if (days > 1 && days < 7) return `${when.toLocaleDateString(undefined, { weekday: "long" })}, ${time}`;
  const sameYear = when.getFullYear() === now.getFullYear();
  return when.toLocaleDateString(undefined, sameYear ? { day: "numeric", month: "long" } : { day: "numeric", month: "long", year: "numeric" });
}

/** "Pricing and Plans > Plan details > Pro" under the title "Pricing and Plans" → "Plan details › Pro". */
export function sectionLabel(sectionPath, title) {
  const parts = String(sectionPath || "").split(" > ");
  if (parts.length > 1 && parts[0] === title) parts.shift();
  return parts.join(" › ");
}

// Icons: fixed SVG shapes (Feather-style strokes), built with createElementNS — no markup parsing.
const ICONS = {
  up: [
    ["path", { d: "M14 9V5a3 3 0 0 0-3-3l-4 9v11h11.28a2 2 0 0 0 2-1.7l1.38-9a2 2 0 0 0-2-2.3z" }],
    ["path", { d: "M7 22H4a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2h3" }],
  ],
  down: [
    ["path", { d: "M10 15v4a3 3 0 0 0 3 3l4-9V2H5.72a2 2 0 0 0-2 1.7l-1.38 9a2 2 0 0 0 2 2.3z" }],
    ["path", { d: "M17 2h2.67A2.31 2.31 0 0 1 22 4v7a2.31 2.31 0 0 1-2.33 2H17" }],
  ],
  star: [["polygon", { points: "12 2 15.09 8.26 22 9.27 17 14.14 18.18 21.02 12 17.77 5.82 21.02 7 14.14 2 9.27 8.91 8.26 12 2" }]],
  close: [["line", { x1: 18, y1: 6, x2: 6, y2: 18 }], ["line", { x1: 6, y1: 6, x2: 18, y2: 18 }]],
  back: [["line", { x1: 19, y1: 12, x2: 5, y2: 12 }], ["polyline", { points: "12 19 5 12 12 5" }]],
  send: [["line", { x1: 12, y1: 19, x2: 12, y2: 5 }], ["polyline", { points: "5 12 12 5 19 12" }]],
  docs: [
    ["path", { d: "M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8z" }],
    ["polyline", { points: "14 2 14 8 20 8" }],
    ["line", { x1: 16, y1: 13, x2: 8, y2: 13 }],
    ["line", { x1: 16, y1: 17, x2: 8, y2: 17 }],
  ],
  key: [
    ["path", { d: "M21 2l-2 2m-7.61 7.61a5.5 5.5 0 1 1-7.778 7.778 5.5 5.5 0 0 1 7.777-7.777z" }],
    ["path", { d: "M11.39 11.61L15.5 7.5m0 0l3 3L22 7l-3-3m-3.5 3.5L19 4" }],
  ],
  chats: [["path", { d: "M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z" }]],
  plus: [["line", { x1: 12, y1: 5, x2: 12, y2: 19 }], ["line", { x1: 5, y1: 12, x2: 19, y2: 12 }]],
  upload: [
    ["path", { d: "M21 15v4a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-4" }],
    ["polyline", { points: "17 8 12 3 7 8" }],
    ["line", { x1: 12, y1: 3, x2: 12, y2: 15 }],
  ],
  graph: [
    ["circle", { cx: 5, cy: 6, r: 2.5 }],
    ["circle", { cx: 19, cy: 5, r: 2.5 }],
    ["circle", { cx: 12, cy: 18, r: 2.5 }],
    ["line", { x1: 7.3, y1: 7.2, x2: 10.8, y2: 15.8 }],
    ["line", { x1: 17.6, y1: 7.1, x2: 13.3, y2: 15.8 }],
    ["line", { x1: 7.5, y1: 5.8, x2: 16.5, y2: 5.2 }],
  ],
  filter: [["polygon", { points: "22 3 2 3 10 12.46 10 19 14 21 14 12.46 22 3" }]],
  external: [
    ["path", { d: "M18 13v6a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h6" }],
    ["polyline", { points: "15 3 21 3 21 9" }],
    ["line", { x1: 10, y1: 14, x2: 21, y2: 3 }],
  ],
};

export function icon(name) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  for (const [key, value] of Object.entries({
    viewBox: "0 0 24 24", width: 16, height: 16, fill: "none", stroke: "currentColor",
    "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round", "aria-hidden": "true",
    class: `icon icon-${name}`,
  })) svg.setAttribute(key, String(value));
  for (const [tag, attrs] of ICONS[name] || []) {
    const shape = document.createElementNS(ns, tag);
    for (const [key, value] of Object.entries(attrs)) shape.setAttribute(key, String(value));
    svg.append(shape);
  }
  return svg;
}
