// A small Markdown renderer for answers and document sections: paragraphs, lists, tables, code,
// quotes, headings, **bold**, *emphasis*, `code`, [links](http…). It builds elements and text
// nodes only — never HTML — so markup in a document stays visible text. Links become links only
// for http(s) URLs; anything else (javascript:, data:, relative) is left as the literal text.

import { el, httpUrl } from "./dom.js";

const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const FENCE = /^\s*(```|~~~)/;
const HEADING = /^(#{1,6})\s+(.*)$/;

// Citation keys `[^doc_id:section]` (doc ids are slugs; a section never holds "]"), the verifier's
// flags, **bold**, `code`, [label](url), *emphasis*.
const INLINE = new RegExp(
  [
    /(\[\^[a-z0-9][a-z0-9._-]*:[^\]\n]+\])/.source,
    /\[(unsupported|contradicted)\]/.source,
    /\*\*([^*\n]+?)\*\*/.source,
    /`([^`\n]+)`/.source,
    /\[([^\]\n]+)\]\(([^()\s]+)\)/.source,
    /(?<![\w*])\*([^*\s](?:[^*\n]*[^*\s])?)\*(?![\w*])/.source,
  ].join("|"),
  "g",
);

/**
 * Render `text` into `container`. `options.citation(key)` → a node for a citation key (or null
 * to keep the key as text); `options.flags` shows the verifier's [unsupported] marks as badges.
 */
export function renderMarkdown(container, text, options = {}) {
  const lines = String(text ?? "").replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i += 1;
    } else if (FENCE.test(line)) {
      i = codeBlock(container, lines, i);
    } else if (isTableStart(lines, i)) {
      i = table(container, lines, i, options);
    } else if (LIST_ITEM.test(line)) {
      i = list(container, lines, i, options);
    } else if (HEADING.test(line)) {
      const [, hashes, title] = line.match(HEADING);
      container.append(inline(el(hashes.length <= 2 ? "h4" : "h5", { class: "md-heading" }), title, options));
      i += 1;
    } else if (/^\s*>/.test(line)) {
      i = quote(container, lines, i, options);
    } else {
      i = paragraph(container, lines, i, options);
    }
  }
  return container;
}

function startsBlock(lines, i) {
  const line = lines[i];
  return !line.trim() || FENCE.test(line) || isTableStart(lines, i) || LIST_ITEM.test(line) || HEADING.test(line) || /^\s*>/.test(line);
}

function paragraph(container, lines, i, options) {
  const node = el("p");
  let first = true;
  while (i < lines.length && (first || !startsBlock(lines, i))) {
    if (!first) node.append(el("br"));
    inline(node, lines[i].trim(), options);
    first = false;
    i += 1;
  }
  container.append(node);
  return i;
}

function codeBlock(container, lines, i) {
  const fence = lines[i].trim().slice(0, 3);
  const body = [];
  i += 1;
  while (i < lines.length && !lines[i].trim().startsWith(fence)) body.push(lines[i++]);
  container.append(el("pre", { class: "md-code" }, el("code", {}, body.join("\n"))));
  return i + 1;
}

function quote(container, lines, i, options) {
  const body = [];
  while (i < lines.length && /^\s*>/.test(lines[i])) body.push(lines[i++].replace(/^\s*>\s?/, ""));
  container.append(renderMarkdown(el("blockquote"), body.join("\n"), options));
  return i;
}

function list(container, lines, i, options) {
  const node = el(/^\s*\d/.test(lines[i]) ? "ol" : "ul");
  let item = null;
  while (i < lines.length && lines[i].trim()) {
    const line = lines[i];
    if (LIST_ITEM.test(line)) {
      item = inline(el("li"), line.replace(LIST_ITEM, ""), options);
      node.append(item);
    } else if (startsBlock(lines, i)) {
      break;
    } else {
      item.append(" ");
      inline(item, line.trim(), options); // a wrapped item
    }
    i += 1;
  }
  container.append(node);
  return i;
}

function isTableStart(lines, i) {
  return lines[i].includes("|") && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1]) && lines[i + 1].includes("-");
}

// A "|" splits cells unless escaped (\|) or inside a citation key [^doc:A | B].
const CELL_PIPE = /(?<!\\)\|(?![^[\]\n]*\])/;

/** A row's cells, `width` of them when given: cells past it join the last (a citation written
 * after the closing pipe stays on its row), missing ones are empty. */
function cells(line, width = 0) {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  const found = row.split(CELL_PIPE).map((cell) => cell.trim().replace(/\\\|/g, "|"));
  if (!width) return found;
  const fitted = found.slice(0, width - 1).concat(found.slice(width - 1).filter(Boolean).join(" "));
  return fitted.concat(Array(width - fitted.length).fill(""));
}

/** A cell's text; a sheet's line break (`<br>`) as a line break, never as markup. */
function cell(tag, text, options) {
  const node = el(tag);
  text.split(/<br\s*\/?>/i).forEach((part, n) => {
    if (n) node.append(el("br"));
    inline(node, part, options);
  });
  return node;
}

function table(container, lines, i, options) {
  const header = cells(lines[i]);
  const head = el("tr", {}, header.map((text) => cell("th", text, options)));
  const body = el("tbody");
  i += 2;
  while (i < lines.length && lines[i].includes("|") && lines[i].trim()) {
    body.append(el("tr", {}, cells(lines[i], header.length).map((text) => cell("td", text, options))));
    i += 1;
  }
  container.append(el("div", { class: "table-wrap" }, el("table", { class: "md-table" }, el("thead", {}, head), body)));
  return i;
}

/** The number sits right after the word it backs, and never wraps to a line of its own. */
function attachCitation(parent, before, cited) {
  const trimmed = before.replace(/\s+$/, "");
  const last = parent.lastChild;
  if (!trimmed && last && last.nodeType === Node.ELEMENT_NODE && last.classList.contains("cite-group")) {
    last.append(cited); // a second citation after the first
    return;
  }
  const word = trimmed.match(/\S+$/);
  if (!word) {
    parent.append(trimmed, cited);
    return;
  }
  parent.append(trimmed.slice(0, word.index), el("span", { class: "cite-group" }, word[0], cited));
}

/** Inline markup of one line into `parent`; returns `parent`. */
export function inline(parent, text, options = {}) {
  let at = 0;
  for (const match of text.matchAll(INLINE)) {
    const [whole, key, flag, bold, code, label, url, em] = match;
    const before = text.slice(at, match.index);
    at = match.index + whole.length;
    const cited = key && options.citation ? options.citation(key) : null;
    if (cited) {
      attachCitation(parent, before, cited);
      continue;
    }
    parent.append(before);
    if (flag && options.flags) {
      parent.append(el("span", { class: `flag flag-${flag}`, title: `The verifier found this claim ${flag} by what it cites` }, flag));
    } else if (bold) parent.append(inline(el("strong"), bold, options));
    else if (code) parent.append(el("code", {}, code));
    else if (label && httpUrl(url)) {
      parent.append(el("a", { href: httpUrl(url), target: "_blank", rel: "noopener noreferrer nofollow" }, label));
    } else if (em) parent.append(inline(el("em"), em, options));
    else parent.append(whole); // a key no one resolved, a link that is not http(s): the literal text
  }
  parent.append(text.slice(at));
  return parent;
}
