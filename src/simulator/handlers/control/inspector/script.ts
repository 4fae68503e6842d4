// The inspector page's script (served at /_sim/ui/app.js): plain JavaScript for the
// browser, no framework and nothing from another machine. It is one more client of the
// control interface: every change it makes is a control route a script can call too.
// (Kept as text here so that the Mock Service Worker build, which has no file system,
// carries it as the server does; test/simulator/inspector-browser.test.ts runs it.)
export const INSPECTOR_SCRIPT = String.raw`"use strict";
// The simulator's request inspector: one more client of the control interface /_sim/.
// It reads GET /_sim/requests, /_sim/requests/{seq} and /_sim/overview, listens to the
// push channel /_sim/ui/events, and changes the hub only through the control routes a
// script would call (reset, clock, outcomes, cancel, delete, scenarios, faults).
(function () {
  const MAX_ROWS = 1000;
  const STATUS_ORDER = ["QUEUED", "PENDING", "RUNNING", "MODERATION_PENDING", "DONE", "FAILED", "deleted"];
  const OUTCOMES = ["done", "fail", "hold", "slow", "late"];
  const byId = (id) => document.getElementById(id);
  const view = {
    rows: new Map(), // seq -> row summary, newest first in order
    order: [],
    selected: null,
    overview: null,
    clock: null, // { now_ms, speed, at }
    lastSpeed: 1,
    skipped: 0,
  };

  /** An element: attributes, class, dataset, on<event> handlers; children are nodes or text (never HTML). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const key in attrs || {}) {
      const value = attrs[key];
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "dataset") Object.assign(node.dataset, value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(3)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  /** Replaces the children of the element of that id (nested lists flattened, null and false left out). */
  function fill(id, ...children) {
    byId(id).replaceChildren(...children.flat(3).filter((c) => c !== null && c !== undefined && c !== false));
  }

  const pad = (n, w) => String(n).padStart(w || 2, "0");
  function timeOf(iso) {
    const d = new Date(iso);
    return pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + "." + pad(d.getMilliseconds(), 3);
  }
  function dateTimeOf(ms) {
    const d = new Date(ms);
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  }
  const msOf = (ms) => (ms < 1 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : String(Math.round(ms)));
  const credits = (cc) => (cc / 100).toLocaleString("en-US", { maximumFractionDigits: 2 }) + " credits";

  /** A control route, as a script calls it: JSON in and out; a refusal throws its envelope's code and message. */
  async function call(method, path, body) {
    const init = { method: method, headers: {} };
    if (method !== "GET") {
      init.headers["content-type"] = "application/json";
      if (body !== undefined) init.body = JSON.stringify(body);
    }
    const response = await fetch("/_sim/" + path, init);
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : null;
    if (!response.ok) {
      const error = parsed && parsed.error;
      throw new Error(method + " /_sim/" + path + " answered " + response.status + (error ? " " + error.code + ": " + error.message : ""));
    }
    return parsed;
  }

  let problemTimer = 0;
  function problem(error) {
    const box = byId("problem");
    box.textContent = String(error && error.message ? error.message : error);
    box.hidden = false;
    clearTimeout(problemTimer);
    problemTimer = setTimeout(() => (box.hidden = true), 10000);
  }

  /** A change through a control route; the state is read again after it. */
  async function act(method, path, body) {
    try {
      const answer = await call(method, path, body);
      refreshSoon();
      return answer;
    } catch (error) {
      problem(error);
      return undefined;
    }
  }

  // ---- Requests ------------------------------------------------------------------------

  function filters() {
    const query = new URLSearchParams();
    const add = (name, id) => {
      const value = byId(id).value.trim();
      if (value) query.set(name, value);
    };
    add("status", "filter-status");
    add("route", "filter-route");
    add("credential", "filter-credential");
    add("q", "filter-text");
    return query;
  }

  function credentialText(c) {
    if (!c) return "";
    return c.id || c.note || c.channel || "";
  }

  function streamText(s) {
    return (s.open ? "open" : s.end || "closed") + ", " + s.frames + " frame" + (s.frames === 1 ? "" : "s");
  }

  function rowNodes(r) {
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

  function renderRows() {
    const body = byId("rows");
    body.replaceChildren(...view.order.map((seq) => rowNodes(view.rows.get(seq))).flat());
    byId("empty").hidden = view.order.length > 0;
    byId("requests-count").textContent = view.order.length + (view.skipped ? " (" + view.skipped + " more not shown)" : "");
    const routes = new Set();
    const credentials = new Set();
    for (const r of view.rows.values()) {
      routes.add(r.route);
      if (r.credential && r.credential.id) credentials.add(r.credential.id);
    }
    byId("routes").replaceChildren(...[...routes].sort().map((value) => el("option", { value: value })));
    byId("credentials").replaceChildren(...[...credentials].sort().map((value) => el("option", { value: value })));
  }

  function keep(rows) {
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
  async function list() {
    const asked = ++listing;
    const query = filters();
    query.set("limit", "200");
    try {
      const answer = await call("GET", "requests?" + query.toString());
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
  function listSoon() {
    clearTimeout(listTimer);
    listTimer = setTimeout(list, 250);
  }

  function received(rows, skipped) {
    if (filtered()) return listSoon();
    view.skipped += skipped || 0;
    keep(rows);
    renderRows();
  }

  // ---- One exchange --------------------------------------------------------------------

  function headersTable(headers) {
    return el("dl", null, Object.keys(headers).map((name) => [el("dt", null, name), el("dd", { class: "mono" }, headers[name])]));
  }

  function bodyBlock(message) {
    if (message.body !== null) return [message.body_note ? el("p", { class: "muted" }, message.body_note) : null, el("pre", null, pretty(message.body))];
    return el("p", { class: "muted" }, message.body_note || "No body.");
  }

  function pretty(text) {
    if (!/^\s*[[{]/.test(text)) return text;
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch (error) {
      return text;
    }
  }

  async function select(seq) {
    view.selected = seq;
    for (const tr of byId("rows").querySelectorAll("tr.row")) tr.classList.toggle("selected", Number(tr.dataset.seq) === seq);
    await showDetail(seq);
  }

  async function showDetail(seq) {
    let x;
    try {
      x = await call("GET", "requests/" + seq);
    } catch (error) {
      byId("detail-body").replaceChildren(el("p", { class: "muted" }, "This request is no longer in the journal (it keeps the most recent ones, from the last reset on)."));
      byId("detail").hidden = false;
      return;
    }
    if (view.selected !== seq) return;
    const copy = el("button", { type: "button", class: "small", onclick: () => navigator.clipboard && navigator.clipboard.writeText(x.curl).catch(() => undefined) }, "Copy");
    const parts = [
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

  // ---- State ---------------------------------------------------------------------------

  function windowText(w) {
    return w.policy + " " + w.remaining + "/" + w.quota + " left" + (w.resets_in_seconds === null ? "" : ", anew in " + w.resets_in_seconds + " s");
  }

  function timeline(steps) {
    return steps.map((s, i) => el("span", { class: s.planned ? "planned" : null, title: s.time }, i ? " → " : "", s.status, s.deleted ? " (deleted)" : "", s.reason ? " (" + s.reason + ")" : "", " ", timeOf(s.time).slice(0, 8)));
  }

  function generationRow(g) {
    const outcome = el("select", { "aria-label": "Outcome", class: "outcome" }, OUTCOMES.map((o) => el("option", null, o)));
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
      el("td", null, el("code", { title: g.id + ", account " + g.account_id + ", key " + g.key_id }, g.id.slice(-8)), el("br"), g.type + " " + g.model),
      el("td", null, g.title, el("div", { class: "timeline" }, timeline(g.timeline)), g.error_reason ? el("div", { class: "timeline" }, "reason " + g.error_reason + (g.refunded ? ", refunded" : "")) : null),
      actions,
    );
  }

  function renderOverview(o) {
    view.overview = o;
    byId("scenario").textContent = "scenario " + o.scenario + (o.api_enabled ? "" : ", API switched off") + ", " + o.open_streams + " open stream" + (o.open_streams === 1 ? "" : "s") + ", journal of " + o.journal.size;
    setClock(o.clock);
    const groups = o.generations.filter((g) => g.count > 0).sort((a, b) => STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status));
    fill("generations", 
      el("h3", null, "Generations"),
      groups.length === 0 ? el("p", { class: "muted" }, "No generation yet.") : null,
      groups.map((g) => el("div", { class: "group", dataset: { status: g.status } }, el("h4", null, g.status + " ", el("small", null, g.count > g.data.length ? g.data.length + " of " + g.count : String(g.count))), el("table", null, el("tbody", null, g.data.map(generationRow))))),
    );
    fill("accounts", 
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
    fill("keys", 
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
    fill("faults", 
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
  async function refresh() {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      renderOverview(await call("GET", "overview"));
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
  function refreshSoon() {
    if (refreshTimer) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = 0;
      refresh();
    }, 400);
  }

  function setClock(clock) {
    view.clock = { now_ms: clock.now_ms, speed: clock.speed, at: Date.now() };
    if (clock.speed > 0) view.lastSpeed = clock.speed;
    byId("pause").textContent = clock.speed === 0 ? "Resume clock" : "Pause clock";
    tick();
  }

  function tick() {
    const c = view.clock;
    if (!c) return;
    const now = c.now_ms + (Date.now() - c.at) * c.speed;
    byId("clock").textContent = "clock " + dateTimeOf(now) + (c.speed === 0 ? ", paused" : c.speed === 1 ? "" : ", " + c.speed + "x");
  }

  async function scenarios() {
    try {
      const answer = await call("GET", "scenarios");
      byId("scenario-name").replaceChildren(...answer.data.map((s) => el("option", { value: s.name, title: s.description, selected: s.name === answer.loaded }, s.name)));
    } catch (error) {
      problem(error);
    }
  }

  // ---- Controls ------------------------------------------------------------------------

  function wire() {
    byId("pause").addEventListener("click", () => act("POST", "clock", { speed: view.clock && view.clock.speed === 0 ? view.lastSpeed : 0 }));
    byId("advance").addEventListener("click", () => act("POST", "clock/advance", { seconds: Number(byId("advance-seconds").value) || 0 }));
    byId("reset").addEventListener("click", () => act("POST", "reset"));
    byId("detail-close").addEventListener("click", () => {
      view.selected = null;
      byId("detail").hidden = true;
      for (const tr of byId("rows").querySelectorAll("tr.selected")) tr.classList.remove("selected");
    });
    for (const id of ["filter-status", "filter-route", "filter-credential", "filter-text"]) {
      byId(id).addEventListener("input", () => {
        if (filtered()) return listSoon();
        list();
      });
    }
    byId("scenario-load").addEventListener("click", async () => {
      if (await act("POST", "scenario", { name: byId("scenario-name").value })) scenarios();
    });
    byId("scenario-file").addEventListener("change", async (event) => {
      const file = event.target.files[0];
      if (!file) return;
      let parsed;
      try {
        parsed = JSON.parse(await file.text());
      } catch (error) {
        return problem(new Error(file.name + " is not JSON: " + error.message));
      }
      if (await act("POST", "scenario", parsed)) scenarios();
      event.target.value = "";
    });
    byId("fault-add").addEventListener("click", () => {
      const fault = { kind: byId("fault-kind").value };
      const route = byId("fault-route").value.trim();
      const count = byId("fault-count").value;
      const latency = byId("fault-latency").value;
      if (route) fault.route = route;
      if (count) fault.count = Number(count);
      if (latency && fault.kind === "latency") fault.latency_ms = Number(latency);
      act("POST", "faults", fault);
    });
    byId("faults-clear").addEventListener("click", () => act("DELETE", "faults"));
  }

  // ---- The push channel ----------------------------------------------------------------

  function listen() {
    const live = byId("live");
    const channel = new EventSource("/_sim/ui/events");
    channel.addEventListener("open", () => {
      live.textContent = "live";
      live.className = "live on";
    });
    channel.addEventListener("error", () => {
      live.textContent = "reconnecting";
      live.className = "live off";
    });
    channel.addEventListener("requests", (event) => {
      const data = JSON.parse(event.data);
      received(data.data, data.skipped);
    });
    channel.addEventListener("streams", (event) => {
      const rows = JSON.parse(event.data).data;
      const shown = rows.filter((r) => view.rows.has(r.seq));
      if (shown.length) {
        keep(shown);
        renderRows();
      }
      if (rows.some((r) => r.seq === view.selected)) showDetail(view.selected);
    });
    channel.addEventListener("state", (event) => {
      setClock(JSON.parse(event.data).clock);
      refreshSoon();
    });
  }

  wire();
  listen();
  refresh();
  scenarios();
  setInterval(tick, 250);
})();
`;
