// The route explorer: renders what the API answers, never decides a route itself.
// Every value from the manifest or a URL is shown as text (textContent), never markup.
"use strict";

const $ = (id) => document.getElementById(id);
const POLL_MS = 2000;
const PAGE = 500; // rows of the route table shown at a time

const state = { manifestETag: null, manifest: null, version: null, routes: [], limit: PAGE, lastResult: null };

// ---- small helpers -------------------------------------------------------------

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function show(node, visible) { node.hidden = !visible; }

function display(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

async function api(path, options) {
  const response = await fetch(path, options);
  const type = response.headers.get("Content-Type") || "";
  const body = type.includes("json") && response.status !== 304 ? await response.json() : null;
  if (!response.ok && response.status !== 304) {
    const detail = body && body.detail ? body.detail : response.status + " " + response.statusText;
    throw new Error(detail);
  }
  return { response, body };
}

// ---- the address holds the state ------------------------------------------------
// #url=...&platform=ios&idiom=tablet&appVersion=7.1.0&explain=1&filter=artist, each
// value percent-encoded; read back without turning + into a space.

const FIELDS = ["url", "platform", "idiom", "appVersion", "explain", "filter"];

function readHash() {
  const values = {};
  for (const part of location.hash.replace(/^#/, "").split("&")) {
    if (!part) continue;
    const eq = part.indexOf("=");
    // A malformed escape (`#%E0%A4%A`) reads as written: an address never stops the page.
    const decode = (text) => { try { return decodeURIComponent(text); } catch (e) { return text; } };
    const key = decode(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? "" : decode(part.slice(eq + 1));
    if (FIELDS.includes(key)) values[key] = value;
  }
  return values;
}

function formValues() {
  return {
    url: $("url").value,
    platform: $("platform").value,
    idiom: $("idiom").value,
    appVersion: $("appVersion").value.trim(),
    explain: $("explain").checked ? "1" : "",
    filter: $("filter").value,
  };
}

function writeHash() {
  const values = formValues();
  const parts = FIELDS.filter((k) => values[k]).map((k) => k + "=" + encodeURIComponent(values[k]));
  const hash = parts.length ? "#" + parts.join("&") : "";
  if (location.hash !== hash) history.replaceState(null, "", location.pathname + location.search + hash);
}

function applyHash() {
  const values = readHash();
  $("url").value = values.url || "";
  $("platform").value = values.platform || "";
  $("idiom").value = values.idiom || "";
  $("appVersion").value = values.appVersion || "";
  $("explain").checked = !!values.explain && values.explain !== "0";
  $("filter").value = values.filter || "";
  filterTable();
  if (values.url !== undefined) resolveCurrent();
}

// ---- resolve ----------------------------------------------------------------------

function resolveQuery() {
  const v = formValues();
  const q = new URLSearchParams();
  q.set("url", v.url);
  if (v.platform) q.set("platform", v.platform);
  if (v.idiom) q.set("idiom", v.idiom);
  if (v.appVersion) q.set("appVersion", v.appVersion);
  q.set("explain", "near");
  return "/v1/resolve?" + q.toString().replace(/\+/g, "%20");
}

async function resolveCurrent(changeNote) {
  writeHash();
  const error = $("resolve-error");
  try {
    const { body } = await api(resolveQuery());
    show(error, false);
    const before = state.lastResult;
    state.lastResult = body;
    renderResult(body);
    if (changeNote && before) noteChange(changeNote, before, body);
  } catch (e) {
    error.textContent = e.message;
    show(error, true);
  }
}

function summary(result) {
  if (!result) return "";
  switch (result.status) {
    case "matched": return "matched " + result.route.name + " → " + result.destination + " (" + result.presentation.style + ")";
    case "fallback": return "fallback → " + result.destination;
    case "rejected": return "rejected: " + result.reason;
    default: return result.status;
  }
}

function renderResult(result) {
  show($("result"), true);
  const dl = $("result-summary");
  dl.replaceChildren();
  const add = (term, value, className) => {
    dl.append(el("dt", term));
    dl.append(el("dd", value, className));
  };
  add("status", result.status, "status status-" + result.status);
  if (result.reason) add("why", result.reason);
  if (result.status === "external") add("why", "not a host or scheme of the app: the link leaves the app");
  if (result.route) add("route", result.route.name + " " + result.route.pattern);
  if (result.destination) add("destination", result.destination);
  if (result.presentation) {
    const options = Object.entries(result.presentation).filter(([k]) => k !== "style")
      .map(([k, v]) => k + "=" + display(v));
    add("presentation", [result.presentation.style].concat(options).join(", "));
  }
  if (result.fragment !== undefined) add("fragment", result.fragment);
  add("manifest", "version " + result.manifest.version);

  const body = $("params").tBodies[0];
  body.replaceChildren();
  for (const [name, value] of Object.entries(result.params || {})) {
    const row = el("tr");
    row.append(el("td", name), el("td", display(value)));
    body.append(row);
  }
  if (!Object.keys(result.params || {}).length) {
    const row = el("tr");
    row.append(el("td", "(none)"), el("td", ""));
    body.append(row);
  }
  renderExplanation(result);
  highlight();
}

function renderExplanation(result) {
  const wanted = $("explain").checked;
  const explain = result.explain || {};
  show($("explanation"), wanted);
  const steps = $("steps");
  steps.replaceChildren();
  if (explain.path !== undefined) {
    steps.append(el("li", "normalized: host " + (explain.host || "(none)") + ", path " + explain.path +
      ", segments [" + (explain.segments || []).map((s) => JSON.stringify(s)).join(", ") + "]"));
  }
  const tried = explain.tried || [];
  const winner = result.status === "matched" ? tried.map((t) => t.outcome).lastIndexOf("matched") : -1;
  tried.forEach((step, i) => {
    let text = "tried " + step.route + " " + step.pattern;
    if (step.path !== explain.path) text += " on " + step.path;
    text += ": " + step.outcome;
    if (step.reason) text += " (" + step.reason + ")";
    if (step.detail) text += " " + step.detail;
    const cls = step.outcome === "refused" ? "refused" : step.outcome === "redirected" ? "hop" : i === winner ? "won" : "";
    const item = el("li", (i === winner ? "✔ " : step.outcome === "redirected" ? "↪ " : "") + text, cls);
    steps.append(item);
  });
  if (explain.note) steps.append(el("li", explain.note));
  const near = $("near");
  near.replaceChildren();
  for (const miss of explain.near || []) {
    near.append(el("li", miss.route + " " + miss.path + ": " + miss.reason));
  }
  show($("near-title"), (explain.near || []).length > 0);
}

// ---- the route table --------------------------------------------------------------
// A table of 40,000 expansions cannot be a DOM of 40,000 rows and stay quick (14 s to
// lay out in chromium), so the filter runs over the entries and at most `state.limit`
// matching rows are shown, in precedence order, plus the rows the last resolution tried
// wherever they are; "show more" raises the limit. Rows are built once per manifest.

async function loadRoutes() {
  const { body } = await api("/v1/routes");
  state.routes = body.routes.map((entry) => {
    const cells = [entry.order, entry.host || "*", entry.path, entry.route,
      entry.destination || (entry.redirect ? "→ " + entry.redirect : ""), entry.presentation || "", entry.notes.join("; ")];
    return { entry, cells, text: cells.join("\n").toLowerCase(), row: null };
  });
  state.limit = PAGE;
  renderTable(false);
}

function rowFor(item) {
  if (item.row) return item.row;
  const entry = item.entry;
  const row = el("tr");
  row.tabIndex = 0;
  row.dataset.route = entry.route;
  row.dataset.pattern = entry.pattern;
  row.dataset.path = entry.path;
  row.dataset.host = entry.host || "";
  row.append(...item.cells.map((cell) => el("td", cell)));
  row.addEventListener("click", () => openRoute(entry));
  row.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") { event.preventDefault(); openRoute(entry); }
  });
  item.row = row;
  return row;
}

// What the last resolution did to the table: the expansions it tried and the one that
// took the URL, as the explanation names them. A host-restricted row counts only for
// its host.
function marks(result) {
  const explain = (result && result.explain) || {};
  const tried = explain.tried || [];
  const key = (route, path) => route + "\u001f" + path;
  const won = result && result.status === "matched" ? tried.filter((t) => t.outcome === "matched").pop() : undefined;
  const touched = new Set(tried.map((t) => key(t.route, t.expansion)));
  return (entry) => {
    if (entry.host && entry.host !== explain.host) return "";
    if (won && entry.route === won.route && entry.path === won.expansion) return "winner";
    return touched.has(key(entry.route, entry.path)) ? "touched" : "";
  };
}

function renderTable(scrollToWinner) {
  const needle = $("filter").value.trim().toLowerCase();
  const mark = marks(state.lastResult);
  const rows = [];
  let matching = 0;
  let winnerRow = null;
  for (const item of state.routes) {
    if (needle && !item.text.includes(needle)) continue;
    matching += 1;
    const kind = mark(item.entry);
    if (matching > state.limit && !kind) continue;
    const row = rowFor(item);
    row.className = kind;
    if (kind === "winner" && !winnerRow) winnerRow = row;
    rows.push(row);
  }
  const body = document.createDocumentFragment();
  for (const row of rows) body.append(row);
  $("routes").tBodies[0].replaceChildren(body);
  const total = state.routes.length;
  let count = matching + " of " + total + " expansions";
  if (rows.length < matching) count += "; the first " + Math.min(state.limit, matching) + " shown, and the rows the last resolution tried";
  $("table-count").textContent = count;
  show($("table-more"), rows.length < matching);
  // Into view inside the table's own scroll box; the page stays where the reader is.
  if (scrollToWinner && winnerRow) {
    const box = winnerRow.closest(".scroll");
    box.scrollTop = Math.max(0, winnerRow.offsetTop - box.clientHeight / 3);
  }
}

function filterTable() {
  state.limit = PAGE;
  renderTable(false);
}

function highlight() {
  renderTable(true);
}

async function openRoute(entry) {
  await refreshManifest();
  const route = state.manifest && state.manifest.routes ? state.manifest.routes[entry.index] : null;
  $("route-detail-title").textContent = "Route " + entry.route;
  $("route-json").textContent = route ? JSON.stringify(route, null, 2) : "(the manifest could not be read)";
  show($("route-detail"), true);
}

// ---- many links -------------------------------------------------------------------

async function runBatch(event) {
  event.preventDefault();
  const text = $("batch-input").value;
  const lines = text.split("\n");
  const isCases = lines.some((l) => l.includes("->") || /\s\[[^\]]*\]\s*$/.test(l));
  const tbody = $("batch-results").tBodies[0];
  tbody.replaceChildren();
  try {
    if (isCases) {
      const { body } = await api("/v1/validate", { method: "POST", headers: { "Content-Type": "text/plain" }, body: text });
      for (const c of body.cases) {
        const row = el("tr", null, c.passed ? "" : "fail");
        row.append(el("td", c.line), el("td", c.url + (c.context ? " " + JSON.stringify(c.context) : "")),
          el("td", c.expected), el("td", (c.passed ? "✔ " : "✘ ") + c.outcome));
        tbody.append(row);
      }
      $("batch-summary").textContent = body.passed + " passed, " + body.failed + " failed";
    } else {
      const urls = [], numbers = [];
      lines.forEach((line, i) => {
        const trimmed = line.trim();
        if (trimmed && !trimmed.startsWith("#")) { urls.push(trimmed); numbers.push(i + 1); }
      });
      const v = formValues();
      const context = {};
      if (v.platform) context.platform = v.platform;
      if (v.idiom) context.idiom = v.idiom;
      if (v.appVersion) context.appVersion = v.appVersion;
      const { body } = await api("/v1/resolve", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ urls, context }),
      });
      body.results.forEach((result, i) => {
        const row = el("tr");
        row.append(el("td", numbers[i]), el("td", result.url), el("td", ""), el("td", summary(result)));
        tbody.append(row);
      });
      $("batch-summary").textContent = body.results.length + " resolved";
    }
    show($("batch-results"), true);
  } catch (e) {
    $("batch-summary").textContent = "error: " + e.message;
  }
}

// ---- the manifest in service ------------------------------------------------------

async function refreshManifest() {
  const headers = state.manifestETag ? { "If-None-Match": state.manifestETag } : {};
  const { response, body } = await api("/v1/manifest", { headers, cache: "no-store" });
  if (response.status === 304) return false;
  state.manifestETag = response.headers.get("ETag");
  state.manifest = body;
  return true;
}

// Reads what /readyz says of the manifest in service; when the manifest changed, loads
// it and the table again and resolves the link shown again.
async function poll() {
  try {
    const { body } = await api("/readyz", { cache: "no-store" });
    $("m-version").textContent = body.version;
    $("m-etag").textContent = body.etag;
    $("m-loaded").textContent = body.loadedAt;
    $("m-reloads").textContent = body.reloads;
    $("m-failures").textContent = body.reloadFailures;
    const failed = $("m-error");
    failed.textContent = body.lastReloadError ? "last reload failed: " + body.lastReloadError : "";
    show(failed, !!body.lastReloadError);
    const previous = state.version;
    const changed = await refreshManifest();
    if (changed && previous !== null) {
      await loadRoutes();
      const note = "manifest changed: version " + previous + " → " + body.version;
      if (state.lastResult) await resolveCurrent(note);
      else showChange(note);
    }
    state.version = body.version;
  } catch (e) {
    $("m-error").textContent = "cannot reach the server: " + e.message;
    show($("m-error"), true);
  }
}

// Follows /v1/events: each `manifest` event is a reload to show, each `reload-failed`
// a refusal shown at once. Where the stream fails (no EventSource, a proxy that refuses
// it, errors before it ever opened or three in a row), the page polls /readyz instead.
function followUpdates() {
  if (typeof window.EventSource !== "function") return pollUpdates("this browser has no EventSource");
  const source = new EventSource("/v1/events");
  let opened = false, errors = 0;
  source.addEventListener("open", () => {
    opened = true;
    errors = 0;
    updatesMode("stream", "live (event stream)");
  });
  source.addEventListener("manifest", () => { poll(); });
  source.addEventListener("reload-failed", (event) => {
    let data = {};
    try { data = JSON.parse(event.data); } catch (e) { data = { error: event.data }; }
    $("m-error").textContent = "last reload failed (" + (data.at || "now") + "): " + data.error;
    show($("m-error"), true);
    poll();
  });
  source.addEventListener("error", () => {
    errors += 1;
    if (!opened || errors >= 3 || source.readyState === EventSource.CLOSED) {
      source.close();
      pollUpdates("the event stream failed");
    } else {
      updatesMode("reconnecting", "reconnecting to the event stream…");
    }
  });
}

function pollUpdates(why) {
  updatesMode("poll", "polling every " + POLL_MS / 1000 + " s (" + why + ")");
  poll();
  setInterval(poll, POLL_MS);
}

function updatesMode(mode, text) {
  document.body.dataset.updates = mode;
  $("m-updates").textContent = text;
}

function noteChange(note, before, after) {
  const a = summary(before), b = summary(after);
  showChange(note + (a === b ? "; the result is the same" : "; result: " + a + "  ⇒  " + b));
}

function showChange(text) {
  $("m-changed").textContent = text;
  show($("m-changed"), true);
}

// ---- start ------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", async () => {
  $("resolve-form").addEventListener("submit", (event) => { event.preventDefault(); resolveCurrent(); });
  $("explain").addEventListener("change", () => { writeHash(); if (state.lastResult) renderExplanation(state.lastResult); });
  for (const id of ["platform", "idiom"]) $(id).addEventListener("change", () => { if ($("url").value) resolveCurrent(); });
  $("filter").addEventListener("input", () => { filterTable(); writeHash(); });
  $("table-more").addEventListener("click", () => { state.limit += PAGE; renderTable(false); });
  $("batch-form").addEventListener("submit", runBatch);
  window.addEventListener("hashchange", applyHash);
  await poll();
  await loadRoutes().catch((e) => { $("table-count").textContent = "error: " + e.message; });
  applyHash();
  document.body.dataset.ready = "1";
  followUpdates();
});
