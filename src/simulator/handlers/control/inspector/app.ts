// The request inspector's page script, served at /_sim/ui/app.js: TypeScript the compiler
// checks (against the DOM and the shapes the control routes answer), bundled by
// make-script.ts into script.ts, which the simulator serves (and the Mock Service Worker
// build carries, having no file system); test/simulator/inspector-script.test.ts fails
// when script.ts no longer matches this file. No framework, nothing from another machine.
//
// It is one more client of the control interface /_sim/: it reads GET /_sim/requests,
// /_sim/requests/{seq} and /_sim/overview, listens to the push channel /_sim/ui/events, and
// changes the hub only through the control routes a script would call (reset, clock,
// outcomes, cancel, delete, scenarios, faults). It works on the hub whose address it was
// opened at: the default hub's `/_sim/ui/`, or a sandbox's `/sandboxes/{id}/_sim/ui/`.
// `#request=<seq>` in its address opens that journal row's exchange (on load and when the
// hash changes); an opened row offers its own link in that form.
import type { RequestExchange, RequestSummary } from "./views.ts";
import type { Overview } from "./overview.ts";

type Child = Node | string | number | null | undefined | false | readonly Child[];
type Attributes = Record<string, unknown> | null;
type Generation = Overview["generations"][number]["data"][number];
type WindowView = Overview["keys"][number]["window"];
type TimelineStep = Generation["timeline"][number];
interface FaultForm {
  kind: string;
  route?: string;
  count?: number;
  latency_ms?: number;
}

const MAX_ROWS = 1000;
const STATUS_ORDER = ["QUEUED", "PENDING", "RUNNING", "MODERATION_PENDING", "DONE", "FAILED", "deleted"];
const OUTCOMES = ["done", "fail", "hold", "slow", "late"];
/** The hub this page works on: the part of its address before /_sim/ui/ ("" for the default hub, `/sandboxes/{id}` for a sandbox). */
const BASE = location.pathname.slice(0, Math.max(0, location.pathname.indexOf("/_sim/ui")));
/** The address of one journal row's exchange on this page. */
const LINK = /^#request=(\d{1,15})$/;

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
}

const view = {
  rows: new Map<number, RequestSummary>(),
  /** Newest first. */
  order: [] as number[],
  selected: null as number | null,
  overview: null as Overview | null,
  clock: null as { now_ms: number; speed: number; at: number } | null,
  lastSpeed: 1,
  skipped: 0,
};

/** An element: attributes, class, dataset, on<event> handlers; children are nodes or text (never HTML). */
function el(tag: string, attrs: Attributes, ...children: Child[]): HTMLElement {
  const node = document.createElement(tag);
  for (const key in attrs ?? {}) {
    const value = attrs![key];
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = String(value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value as EventListener);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node: HTMLElement, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : String(child));
  }
}

/** The nodes of nested lists, null and false left out. */
function nodes(children: readonly Child[]): (Node | string)[] {
  const out: (Node | string)[] = [];
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) out.push(...nodes(child));
    else out.push(child instanceof Node ? child : String(child));
  }
  return out;
}

/** Replaces the children of the element of that id. */
function fill(id: string, ...children: Child[]): void {
  byId(id).replaceChildren(...nodes(children));
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");
function timeOf(iso: string): string {
  const d = new Date(iso);
  return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." + pad(d.getMilliseconds(), 3);
}
function dateTimeOf(ms: number): string {
  const d = new Date(ms);
  return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
}
const msOf = (ms: number) => (ms < 1 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : String(Math.round(ms)));
const credits = (cc: number) => (cc / 100).toLocaleString("en-US", { maximumFractionDigits: 2 }) + " credits";

/** A control route of this page's hub, as a script calls it: JSON in and out; a refusal throws its envelope's code and message. */
async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit & { headers: Record<string, string> } = { method, headers: {} };
  if (method !== "GET") {
    init.headers["content-type"] = "application/json";
    if (body !== undefined) init.body = JSON.stringify(body);
  }
  const response = await fetch(BASE + "/_sim/" + path, init);
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as unknown) : null;
  if (!response.ok) {
    const error = (parsed as { error?: { code: string; message: string } } | null)?.error;
    throw new Error(method + " /_sim/" + path + " answered " + response.status + (error ? " " + error.code + ": " + error.message : ""));
  }
  return parsed as T;
}

let problemTimer = 0;
function problem(error: unknown): void {
  const box = byId("problem");
  box.textContent = String(error instanceof Error ? error.message : error);
  box.hidden = false;
  clearTimeout(problemTimer);
  problemTimer = window.setTimeout(() => (box.hidden = true), 10000);
}

/** A change through a control route; the state is read again after it. */
async function act<T = unknown>(method: string, path: string, body?: unknown): Promise<T | undefined> {
  try {
    const answer = await call<T>(method, path, body);
    refreshSoon();
    return answer;
  } catch (error) {
    problem(error);
    return undefined;
  }
}

// ---- Requests ------------------------------------------------------------------------

function filters(): URLSearchParams {
  const query = new URLSearchParams();
  const add = (name: string, id: string) => {
    const value = byId<HTMLInputElement | HTMLSelectElement>(id).value.trim();
    if (value) query.set(name, value);
  };
  add("status", "filter-status");
  add("route", "filter-route");
  add("credential", "filter-credential");
  add("q", "filter-text");
  return query;
}

function credentialText(c: RequestSummary["credential"]): string {
  if (!c) return "";
  return c.id || c.note || c.channel || "";
}

function streamText(s: NonNullable<RequestSummary["stream"]>): string {
  return (s.open ? "open" : s.end || "closed") + ", " + s.frames + " frame" + (s.frames === 1 ? "" : "s");
}

function rowNodes(r: RequestSummary): HTMLElement[] {
  const row = el(
    "tr",
    { class: "row" + (view.selected === r.seq ? " selected" : ""), dataset: { seq: r.seq, requestId: r.request_id, status: r.status, code: r.error_code || "" }, onclick: () => select(r.seq) },
    el("td", { class: "mono", title: r.time + " (clock " + r.clock_time + ")" }, timeOf(r.time)),
    el("td", null, r.method),
    el("td", { class: "path mono" }, r.path, r.stream ? [" ", el("span", { class: "tag" }, streamText(r.stream))] : null),
    el("td", { class: "s" + Math.floor(r.status / 100) }, r.status === 0 ? "none" : r.status),
    el("td", { class: "mono code" }, r.error_code || ""),
    el("td", { class: "mono rid" }, r.request_id),
    el("td", { title: r.credential ? [r.credential.label, r.credential.account_id].filter(Boolean).join(", ") : "" }, credentialText(r.credential)),
    el("td", { class: "num" }, msOf(r.duration_ms)),
  );
  if (!r.reason) return [row];
  const why = el(
    "tr",
    { class: "why", dataset: { seq: r.seq } },
    el("td", { colspan: 8 }, el("span", { class: "by" }, r.reason.by || ""), " ", r.reason.text, r.reason.docs ? [" ", el("a", { href: r.reason.docs, target: "_blank", rel: "noopener" }, "docs")] : null),
  );
  return [row, why];
}

function renderRows(): void {
  const body = byId("rows");
  body.replaceChildren(...view.order.flatMap((seq) => rowNodes(view.rows.get(seq)!)));
  byId("empty").hidden = view.order.length > 0;
  byId("requests-count").textContent = view.order.length + (view.skipped ? " (" + view.skipped + " more not shown)" : "");
  const routes = new Set<string>();
  const credentials = new Set<string>();
  for (const r of view.rows.values()) {
    routes.add(r.route);
    if (r.credential && r.credential.id) credentials.add(r.credential.id);
  }
  byId("routes").replaceChildren(...[...routes].sort().map((value) => el("option", { value })));
  byId("credentials").replaceChildren(...[...credentials].sort().map((value) => el("option", { value })));
}

function keep(rows: readonly RequestSummary[]): void {
  for (const r of rows) {
    if (!view.rows.has(r.seq)) view.order.push(r.seq);
    view.rows.set(r.seq, r);
  }
  view.order.sort((a, b) => b - a);
  for (const seq of view.order.splice(MAX_ROWS)) view.rows.delete(seq);
}

const filtered = () => [...filters().keys()].length > 0;

/** With a filter, the rows are the journal's answer to it (GET /_sim/requests): the page filters as a script would. */
let listing = 0;
async function list(): Promise<void> {
  const asked = ++listing;
  const query = filters();
  query.set("limit", "200");
  try {
    const answer = await call<{ data: RequestSummary[] }>("GET", "requests?" + query.toString());
    if (asked !== listing) return;
    view.rows.clear();
    view.order = [];
    view.skipped = 0;
    keep(answer.data);
    renderRows();
  } catch (error) {
    problem(error);
  }
}
let listTimer = 0;
function listSoon(): void {
  clearTimeout(listTimer);
  listTimer = window.setTimeout(list, 250);
}

function received(rows: readonly RequestSummary[], skipped: number | undefined): void {
  if (filtered()) return listSoon();
  view.skipped += skipped || 0;
  keep(rows);
  renderRows();
}

// ---- One exchange --------------------------------------------------------------------

function headersTable(headers: Readonly<Record<string, string>>): HTMLElement {
  return el("dl", null, Object.keys(headers).map((name) => [el("dt", null, name), el("dd", { class: "mono" }, headers[name])]));
}

function bodyBlock(message: RequestExchange["request"] | RequestExchange["response"]): Child {
  if (message.body !== null) return [message.body_note ? el("p", { class: "muted" }, message.body_note) : null, el("pre", null, pretty(message.body))];
  return el("p", { class: "muted" }, message.body_note || "No body.");
}

function pretty(text: string): string {
  if (!/^\s*[[{]/.test(text)) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The address of a row's exchange: this page's, with `#request=<seq>`. */
function linkOf(seq: number): string {
  return BASE + "/_sim/ui/#request=" + seq;
}

async function select(seq: number): Promise<void> {
  view.selected = seq;
  for (const tr of byId("rows").querySelectorAll<HTMLElement>("tr.row")) tr.classList.toggle("selected", Number(tr.dataset.seq) === seq);
  // The address bar names the row, so it can be copied (no hashchange: the row is open already).
  if (location.hash !== "#request=" + seq) history.replaceState(null, "", "#request=" + seq);
  await showDetail(seq);
}

async function showDetail(seq: number): Promise<void> {
  let x: RequestExchange;
  try {
    x = await call<RequestExchange>("GET", "requests/" + seq);
  } catch {
    if (view.selected !== seq) return;
    fill("detail-body", el("p", { class: "muted" }, "Request " + seq + " is not in the journal (it keeps the most recent ones, from the last reset on)."));
    byId("detail").hidden = false;
    return;
  }
  if (view.selected !== seq) return;
  const copy = el("button", { type: "button", class: "small", onclick: () => navigator.clipboard && navigator.clipboard.writeText(x.curl).catch(() => undefined) }, "Copy");
  const parts: Child[] = [
    el("p", { class: "link" }, el("a", { id: "detail-link", href: linkOf(x.seq) }, "Link to this request"), el("span", { class: "muted" }, " (#request=" + x.seq + ")")),
    el(
      "dl",
      null,
      el("dt", null, "Request"), el("dd", { class: "mono" }, x.method + " " + x.path),
      el("dt", null, "Status"), el("dd", { class: "s" + Math.floor(x.status / 100) }, (x.status === 0 ? "no answer" : x.status) + (x.error_code ? " " + x.error_code : "")),
      el("dt", null, "Request id"), el("dd", { class: "mono" }, x.request_id),
      el("dt", null, "Route"), el("dd", null, x.route),
      el("dt", null, "Credential"), el("dd", null, x.credential ? [credentialText(x.credential), x.credential.label ? " (" + x.credential.label + ")" : "", x.credential.account_id ? ", account " + x.credential.account_id : ""] : "none"),
      el("dt", null, "Time"), el("dd", null, x.time + ", clock " + x.clock_time + ", " + msOf(x.duration_ms) + " ms"),
      x.fault ? [el("dt", null, "Fault"), el("dd", null, x.fault)] : null,
      x.stream ? [el("dt", null, "Stream"), el("dd", null, streamText(x.stream) + ", " + x.stream.heartbeats + " heartbeats")] : null,
    ),
  ];
  if (x.reason) {
    parts.push(
      el(
        "div",
        { class: "reason" },
        el("p", null, x.reason.text),
        x.reason.details.length ? el("ul", null, x.reason.details.map((d) => el("li", null, el("code", null, d.field || "(request)"), " ", el("strong", null, d.reason), d.reason_meaning ? " (" + d.reason_meaning + ")" : "", ": ", d.message))) : null,
        x.reason.docs ? el("p", null, el("a", { href: x.reason.docs, target: "_blank", rel: "noopener" }, "The route in the docs")) : null,
      ),
    );
  }
  parts.push(el("h3", null, "Request headers"), headersTable(x.request.headers), el("h3", null, "Request body"), bodyBlock(x.request));
  if (x.response.headers) parts.push(el("h3", null, "Answer headers"), headersTable(x.response.headers), el("h3", null, "Answer body"), bodyBlock(x.response));
  else parts.push(el("h3", null, "Answer"), el("p", { class: "muted" }, x.response.body_note));
  if (x.frames) parts.push(el("h3", null, "Frames (the latest " + x.frames.length + ")"), el("pre", { class: "frames" }, x.frames.map((f) => timeOf(f.time) + "\n" + f.text).join("")));
  parts.push(el("h3", null, "Send it again ", copy), el("pre", { class: "curl" }, x.curl));
  fill("detail-body", parts);
  byId("detail").hidden = false;
}

/** The row the address names (`#request=<seq>`), opened; on load and whenever the hash changes. */
function followLink(): void {
  const m = LINK.exec(location.hash);
  if (m) void select(Number(m[1]));
}

// ---- State ---------------------------------------------------------------------------

function windowText(w: WindowView): string {
  return w.policy + " " + w.remaining + "/" + w.quota + " left" + (w.resets_in_seconds === null ? "" : ", anew in " + w.resets_in_seconds + " s");
}

function timeline(steps: readonly TimelineStep[]): HTMLElement[] {
  return steps.map((s, i) => el("span", { class: s.planned ? "planned" : null, title: s.time }, i ? " → " : "", s.status, s.deleted ? " (deleted)" : "", s.reason ? " (" + s.reason + ")" : "", " ", timeOf(s.time).slice(0, 8)));
}

function generationRow(g: Generation): HTMLElement {
  const outcome = el("select", { "aria-label": "Outcome", class: "outcome" }, OUTCOMES.map((o) => el("option", null, o))) as HTMLSelectElement;
  const path = "generations/" + encodeURIComponent(g.id);
  // What the control routes take: an outcome for a generation not DONE (on a FAILED one, done is a late
  // result), a cancellation while it is in progress (running or held, the hub refuses it and says why).
  const actions = g.deleted
    ? el("td", { class: "actions muted" }, "deleted")
    : el(
        "td",
        { class: "actions" },
        g.status === "DONE" ? null : [outcome, " ", el("button", { type: "button", onclick: () => act("POST", path + "/outcome", { outcome: outcome.value }) }, "Force outcome"), " "],
        g.status === "DONE" || g.status === "FAILED" ? null : [el("button", { type: "button", onclick: () => act("POST", path + "/cancel") }, "Cancel"), " "],
        el("button", { type: "button", onclick: () => act("DELETE", path) }, "Delete"),
      );
  return el(
    "tr",
    { class: "gen", dataset: { generation: g.id, status: g.deleted ? "deleted" : g.status } },
    el("td", null, el("code", { title: g.id + ", account " + g.account_id + ", key " + g.key_id }, g.id.slice(-8)), el("br", null), g.type + " " + g.model),
    el("td", null, g.title, el("div", { class: "timeline" }, timeline(g.timeline)), g.error_reason ? el("div", { class: "timeline" }, "reason " + g.error_reason + (g.refunded ? ", refunded" : "")) : null),
    actions,
  );
}

/** The hub picker: the default hub and each sandbox, this page's selected; choosing one opens its inspector. */
function renderPicker(o: Overview): void {
  const pick = byId<HTMLSelectElement>("hub-pick");
  const options = [el("option", { value: "", selected: o.sandbox === null }, "default hub")];
  const ids = o.sandboxes.map((s) => s.id);
  if (o.sandbox !== null && !ids.includes(o.sandbox)) options.push(el("option", { value: o.sandbox, selected: true }, "sandbox " + o.sandbox));
  for (const s of o.sandboxes) options.push(el("option", { value: s.id, selected: s.id === o.sandbox, title: "created " + s.created_at }, "sandbox " + s.id + " (" + s.scenario + ")"));
  // Not while the user has it open: the list would change under the pointer.
  if (document.activeElement !== pick) pick.replaceChildren(...options);
  byId("hub-count").textContent = o.sandboxes.length ? String(o.sandboxes.length) + " sandbox" + (o.sandboxes.length === 1 ? "" : "es") : "";
}

function renderOverview(o: Overview): void {
  view.overview = o;
  byId("scenario").textContent = (o.sandbox ? "sandbox " + o.sandbox + ", " : "") + "scenario " + o.scenario + (o.api_enabled ? "" : ", API switched off") + ", " + o.open_streams + " open stream" + (o.open_streams === 1 ? "" : "s") + ", journal of " + o.journal.size;
  setClock(o.clock);
  renderPicker(o);
  const groups = o.generations.filter((g) => g.count > 0).sort((a, b) => STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status));
  fill(
    "generations",
    el("h3", null, "Generations"),
    groups.length === 0 ? el("p", { class: "muted" }, "No generation yet.") : null,
    groups.map((g) => el("div", { class: "group", dataset: { status: g.status } }, el("h4", null, g.status + " ", el("small", null, g.count > g.data.length ? g.data.length + " of " + g.count : String(g.count))), el("table", null, el("tbody", null, g.data.map(generationRow))))),
  );
  fill(
    "accounts",
    el(
      "table",
      null,
      el("thead", null, el("tr", null, el("th", null, "Account"), el("th", null, "Plan"), el("th", null, "Credits"), el("th", null, "Windows"))),
      el(
        "tbody",
        null,
        o.accounts.map((a) =>
          el(
            "tr",
            { dataset: { account: a.id } },
            el("td", null, el("code", null, a.id), [!a.api_access ? " no API access" : "", a.suspended ? " suspended" : "", !a.terms_accepted ? " terms not accepted" : ""].join("")),
            el("td", null, a.plan.id + (a.plan.paid ? "" : " (not paid)")),
            el("td", { class: "num", title: a.balance_cc + " cc; free: " + a.free_quotas.map((q) => q.type + " " + (q.remaining === null ? "unlimited" : q.remaining) + " (" + q.mode + ")").join(", ") }, credits(a.balance_cc)),
            el("td", null, a.windows.map((w) => el("span", { class: "window" }, windowText(w)))),
          ),
        ),
      ),
    ),
  );
  fill(
    "keys",
    el(
      "table",
      null,
      el("thead", null, el("tr", null, el("th", null, "Key"), el("th", null, "Account"), el("th", null, "Status"), el("th", null, "Window"))),
      el(
        "tbody",
        null,
        o.keys.map((k) =>
          el(
            "tr",
            { dataset: { key: k.id } },
            el("td", { title: k.purpose + "\nscopes: " + k.scopes.join(" ") }, el("code", null, k.id), " ", el("span", { class: "muted" }, k.secret)),
            el("td", null, k.account_id),
            el("td", { class: k.status === "active" ? "s2" : "s4" }, k.status),
            el("td", null, el("span", { class: "window" }, windowText(k.window))),
          ),
        ),
      ),
    ),
  );
  fill(
    "faults",
    o.faults.length === 0
      ? el("p", { class: "muted" }, "No fault in force.")
      : el(
          "table",
          null,
          el(
            "tbody",
            null,
            o.faults.map((f) =>
              el(
                "tr",
                { dataset: { fault: f.id } },
                el("td", null, el("code", null, f.id), " ", f.kind),
                el("td", null, f.route || "every route"),
                el("td", null, "fired " + f.fired + (f.remaining === null ? "" : ", " + f.remaining + " left")),
                el("td", null, el("button", { type: "button", class: "small", onclick: () => act("DELETE", "faults/" + encodeURIComponent(f.id)) }, "Remove")),
              ),
            ),
          ),
        ),
  );
  byId("accounts-count").textContent = String(o.accounts.length);
  byId("keys-count").textContent = String(o.keys.length);
  byId("scenario-export").setAttribute("download", o.scenario + ".json");
}

let refreshing = false;
let again = false;
async function refresh(): Promise<void> {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  try {
    renderOverview(await call<Overview>("GET", "overview"));
  } catch (error) {
    problem(error);
  } finally {
    refreshing = false;
    if (again) {
      again = false;
      refreshSoon();
    }
  }
}
let refreshTimer = 0;
function refreshSoon(): void {
  if (refreshTimer) return;
  refreshTimer = window.setTimeout(() => {
    refreshTimer = 0;
    void refresh();
  }, 400);
}

function setClock(clock: Overview["clock"]): void {
  view.clock = { now_ms: clock.now_ms, speed: clock.speed, at: Date.now() };
  if (clock.speed > 0) view.lastSpeed = clock.speed;
  byId("pause").textContent = clock.speed === 0 ? "Resume clock" : "Pause clock";
  tick();
}

function tick(): void {
  const c = view.clock;
  if (!c) return;
  const now = c.now_ms + (Date.now() - c.at) * c.speed;
  byId("clock").textContent = "clock " + dateTimeOf(now) + (c.speed === 0 ? ", paused" : c.speed === 1 ? "" : ", " + c.speed + "x");
}

async function scenarios(): Promise<void> {
  try {
    const answer = await call<{ data: { name: string; description: string }[]; loaded: string }>("GET", "scenarios");
    byId("scenario-name").replaceChildren(...answer.data.map((s) => el("option", { value: s.name, title: s.description, selected: s.name === answer.loaded }, s.name)));
  } catch (error) {
    problem(error);
  }
}

// ---- Controls ------------------------------------------------------------------------

function wire(): void {
  byId("pause").addEventListener("click", () => act("POST", "clock", { speed: view.clock && view.clock.speed === 0 ? view.lastSpeed : 0 }));
  byId("advance").addEventListener("click", () => act("POST", "clock/advance", { seconds: Number(byId<HTMLInputElement>("advance-seconds").value) || 0 }));
  byId("reset").addEventListener("click", () => act("POST", "reset"));
  byId("detail-close").addEventListener("click", () => {
    view.selected = null;
    byId("detail").hidden = true;
    for (const tr of byId("rows").querySelectorAll("tr.selected")) tr.classList.remove("selected");
    if (LINK.test(location.hash)) history.replaceState(null, "", location.pathname + location.search);
  });
  for (const id of ["filter-status", "filter-route", "filter-credential", "filter-text"]) {
    byId(id).addEventListener("input", () => {
      if (filtered()) return listSoon();
      void list();
    });
  }
  byId("hub-pick").addEventListener("change", () => {
    const id = byId<HTMLSelectElement>("hub-pick").value;
    location.assign((id ? "/sandboxes/" + encodeURIComponent(id) : "") + "/_sim/ui/");
  });
  byId("hub-pick").addEventListener("focus", () => void refresh());
  byId("scenario-load").addEventListener("click", async () => {
    if (await act("POST", "scenario", { name: byId<HTMLSelectElement>("scenario-name").value })) void scenarios();
  });
  byId<HTMLInputElement>("scenario-file").addEventListener("change", async (event) => {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    if (!file) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await file.text());
    } catch (error) {
      return problem(new Error(file.name + " is not JSON: " + (error as Error).message));
    }
    if (await act("POST", "scenario", parsed)) void scenarios();
    input.value = "";
  });
  byId("fault-add").addEventListener("click", () => {
    const fault: FaultForm = { kind: byId<HTMLSelectElement>("fault-kind").value };
    const route = byId<HTMLInputElement>("fault-route").value.trim();
    const count = byId<HTMLInputElement>("fault-count").value;
    const latency = byId<HTMLInputElement>("fault-latency").value;
    if (route) fault.route = route;
    if (count) fault.count = Number(count);
    if (latency && fault.kind === "latency") fault.latency_ms = Number(latency);
    void act("POST", "faults", fault);
  });
  byId("faults-clear").addEventListener("click", () => act("DELETE", "faults"));
  window.addEventListener("hashchange", followLink);
}

// ---- The push channel ----------------------------------------------------------------

function listen(): void {
  const live = byId("live");
  const channel = new EventSource(BASE + "/_sim/ui/events");
  channel.addEventListener("open", () => {
    live.textContent = "live";
    live.className = "live on";
  });
  channel.addEventListener("error", () => {
    live.textContent = "reconnecting";
    live.className = "live off";
  });
  channel.addEventListener("requests", (event) => {
    const data = JSON.parse((event as MessageEvent<string>).data) as { data: RequestSummary[]; skipped?: number };
    received(data.data, data.skipped);
  });
  channel.addEventListener("streams", (event) => {
    const rows = (JSON.parse((event as MessageEvent<string>).data) as { data: RequestSummary[] }).data;
    const shown = rows.filter((r) => view.rows.has(r.seq));
    if (shown.length) {
      keep(shown);
      renderRows();
    }
    if (view.selected !== null && rows.some((r) => r.seq === view.selected)) void showDetail(view.selected);
  });
  channel.addEventListener("state", (event) => {
    setClock((JSON.parse((event as MessageEvent<string>).data) as { clock: Overview["clock"] }).clock);
    refreshSoon();
  });
}

wire();
listen();
void refresh();
void scenarios();
followLink();
setInterval(tick, 250);
