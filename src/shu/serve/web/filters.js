// The filter row above the composer: dates, type, tag, person and folder, offered from what the
// persona's documents hold (GET /v1/personas/{slug}/filters); every question asked while a filter
// is set is kept to the documents it keeps (the `filter` of POST /v1/ask).

import { getJSON } from "./api.js";
import { clear, el, icon } from "./dom.js";

const $ = (id) => document.getElementById(id);
const SELECTS = { type: "filter-type", tag: "filter-tag", source: "filter-source" };
let loaded = ""; // the persona whose choices the selects hold

function optionLabel(choice) {
  return `${choice.value} (${choice.documents})`;
}

function fill(select, choices, any) {
  const kept = select.value;
  clear(select);
  select.append(el("option", { value: "" }, any));
  for (const choice of choices || []) select.append(el("option", { value: choice.value }, optionLabel(choice)));
  select.value = [...select.options].some((o) => o.value === kept) ? kept : "";
  select.disabled = !(choices && choices.length);
}

/** The filter set now, as POST /v1/ask takes it; null when none is set. */
export function currentFilter() {
  const filter = {};
  const since = $("filter-since").value;
  const until = $("filter-until").value;
  if (since) filter.since = since;
  if (until) filter.until = until;
  if ($("filter-type").value) filter.types = [$("filter-type").value];
  if ($("filter-tag").value) filter.tags = [$("filter-tag").value];
  const person = $("filter-person").value.trim();
  if (person) filter.people = [person];
  if ($("filter-source").value) filter.sources = [$("filter-source").value];
  return Object.keys(filter).length ? filter : null;
}

/** "since 2026-01-01 · type email": a filter in a line. */
export function describeFilter(filter) {
  if (!filter) return "";
  const parts = [];
  if (filter.since) parts.push(`since ${filter.since}`);
  if (filter.until) parts.push(`until ${filter.until}`);
  for (const [key, label] of [["types", "type"], ["tags", "tag"], ["people", "person"], ["sources", "folder"], ["doc_ids", "document"]]) {
    if (filter[key] && filter[key].length) parts.push(`${label} ${filter[key].join(", ")}`);
  }
  return parts.join(" · ");
}

function showCount() {
  const filter = currentFilter();
  const count = filter ? Object.keys(filter).length : 0;
  const toggle = $("filter-toggle");
  toggle.classList.toggle("active", count > 0);
  $("filter-count").textContent = count ? String(count) : "";
  $("filter-count").hidden = !count;
  toggle.title = count ? `Questions are kept to: ${describeFilter(filter)}` : "Keep questions to some documents";
  $("filter-clear").disabled = !count;
}

function clearFilters() {
  for (const id of ["filter-since", "filter-until", "filter-person", ...Object.values(SELECTS)]) $(id).value = "";
  showCount();
}

/** The persona's choices in the selects (a new persona starts with no filter). */
export async function loadFilterChoices(slug) {
  if (loaded !== slug) clearFilters();
  loaded = slug;
  if (!slug) return;
  try {
    const choices = await getJSON(`/v1/personas/${encodeURIComponent(slug)}/filters`, { quiet: true });
    if (loaded !== slug) return;
    fill($("filter-type"), choices.types, "Any type");
    fill($("filter-tag"), choices.tags, "Any tag");
    fill($("filter-source"), choices.folders, "Any folder");
    for (const id of ["filter-since", "filter-until"]) {
      $(id).min = choices.first || "";
      $(id).max = choices.last || "";
    }
  } catch {
    for (const id of Object.values(SELECTS)) fill($(id), [], "Any");
  }
  showCount();
}

export function setupFilters() {
  const toggle = $("filter-toggle");
  toggle.prepend(icon("filter"));
  toggle.addEventListener("click", () => {
    const row = $("filter-row");
    row.hidden = !row.hidden;
    toggle.setAttribute("aria-expanded", String(!row.hidden));
    if (!row.hidden) $("filter-since").focus();
  });
  $("filter-row").addEventListener("input", showCount);
  $("filter-row").addEventListener("change", showCount);
  $("filter-clear").addEventListener("click", clearFilters);
  showCount();
}
