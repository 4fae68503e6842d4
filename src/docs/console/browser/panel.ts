// One operation's try-it panel: the request (credential, parameters, body) pre-filled from
// the contract, the body checked as the simulator checks it, the answer with its headers
// and body, the simulator's verdict on a refusal with a link to its row in the inspector,
// an event stream's frames as they arrive, and the request as curl and as client code.
//
// Nothing the reader types leaves the page's memory: no storage, no address, no message
// channel. Nothing in the page's address or from another window fills or sends a panel:
// a request leaves only on the reader's click.
import type { Detail } from "../../../contract/details.ts";
import type { ConsoleModel, ConsoleOperation } from "../model.ts";
import { checkBody, type Validators } from "./check.ts";
import { clientCodeOf, curlOf, paramKey, startingBody, type CredentialKind, type RequestSpec } from "./code.ts";
import { el, fill, newId, uuid } from "./dom.ts";
import { KEY_HEADERS, send, type Answer, type Sent } from "./exchange.ts";
import { readVerdict, type Reason, type Server, type Verdict } from "./server.ts";

/** What every panel of the page shares. */
export interface Page {
  model: ConsoleModel;
  validators: Validators;
  /** What serves the page, found out once. */
  server(): Promise<Server>;
  /** The simulator's address the reader gave on the static site (in memory only). */
  staticBase: { value: string };
}

/** The simulator's address on the static site until the reader gives another. */
export const DEFAULT_BASE = "http://127.0.0.1:4010";

const WRONG = "wrong";

/** One operation's panel, built into the body the loader made under its "Try it" button (loader.ts). */
export class Panel {
  private abort: AbortController | undefined;
  private server: Server | undefined;

  // The request as the reader has it.
  private credential = "none";
  private pasted = "";
  private readonly values: Record<string, string> = {};
  private bodyText = "";
  private mediaType: string | null = null;
  private file: File | null = null;

  // Elements the panel updates.
  private readonly parts = {} as {
    server: HTMLElement;
    credential: HTMLSelectElement;
    pasted: HTMLInputElement;
    pastedRow: HTMLElement;
    inputs: Map<string, HTMLInputElement>;
    textarea: HTMLTextAreaElement | null;
    check: HTMLElement;
    sendButton: HTMLButtonElement;
    anyway: HTMLButtonElement;
    stop: HTMLButtonElement;
    curl: HTMLElement;
    client: HTMLElement;
    copied: HTMLElement;
    answer: HTMLElement;
  };

  constructor(private readonly page: Page, readonly op: ConsoleOperation, private readonly body: HTMLElement) {
    this.build();
  }

  /** The fields, filled from the contract's first example (or the documented request). */
  private build(): void {
    const op = this.op;
    const keys = this.page.model.keys;
    // The demo scenario's first key is the one to start with (paid plan, every scope).
    this.credential = op.schemes.includes("api_key") ? "key:0" : op.schemes.includes("session_cookie") ? "session" : "none";
    this.setDefaults();

    const credentialId = newId("credential");
    const pastedId = newId("pasted");
    const credential = el(
      "select",
      { id: credentialId, onchange: () => this.pick(credential.value) },
      el("option", { value: "none" }, "No credential"),
      el("option", { value: "session" }, "The site's session cookie (sign in at /site/sign-in)"),
      el("optgroup", { label: "Demo keys" }, keys.map((k, i) => el("option", { value: `key:${i}` }, `${k.secret}: ${k.purpose}`))),
      el("option", { value: "paste" }, "A key or token you paste"),
    );
    credential.value = this.credential;
    const pasted = el("input", { id: pastedId, type: "password", autocomplete: "off", spellcheck: "false", placeholder: "ghk_… or gho_…", oninput: () => this.changed(() => (this.pasted = pasted.value)) });
    const pastedRow = el("div", { class: "hub-console-row", hidden: this.credential !== "paste" }, el("label", { for: pastedId }, "Your key (kept in this page's memory only, never stored)"), pasted);

    const inputs = new Map<string, HTMLInputElement>();
    const paramRows = op.parameters.map((p) => {
      const id = newId("param");
      const key = paramKey(p);
      const input = el("input", { id, value: this.values[key] ?? "", placeholder: p.placeholder, spellcheck: "false", "data-param": key, oninput: () => this.changed(() => (this.values[key] = input.value)) });
      inputs.set(key, input);
      const renew = p.name === "Idempotency-Key"
        ? el("button", { type: "button", class: "hub-console-small", onclick: () => this.setValue(key, uuid()) }, "New key")
        : null;
      return el("div", { class: "hub-console-row" }, el("label", { for: id }, el("code", {}, p.name), ` (${p.in}${p.required ? ", required" : ""})`), el("div", { class: "hub-console-inline" }, input, renew));
    });

    const presetId = newId("preset");
    const presets = el("select", { id: presetId, onchange: () => this.preset(presets.value) });
    const examples = op.body?.examples ?? [];
    if (examples.length) examples.forEach((e, i) => presets.append(el("option", { value: String(i) }, `Example: ${e.summary}`)));
    else presets.append(el("option", { value: "0" }, "The documented request"));
    if (op.wrong) presets.append(el("option", { value: WRONG }, `Wrong: ${op.wrong.what.replace(/`/g, "")} (${op.wrong.status} ${op.wrong.code})`));

    let bodyPart: HTMLElement | null = null;
    let textarea: HTMLTextAreaElement | null = null;
    if (op.body?.form === "file") {
      const fileId = newId("file");
      const typeId = newId("type");
      const types = el("select", { id: typeId, onchange: () => this.changed(() => (this.mediaType = types.value)) }, op.body.mediaTypes.map((t) => el("option", { value: t }, t)));
      const picker = el("input", { id: fileId, type: "file", onchange: () => this.changed(() => (this.file = picker.files?.[0] ?? null)) });
      bodyPart = el("div", {}, el("div", { class: "hub-console-row" }, el("label", { for: fileId }, "File to send"), picker), el("div", { class: "hub-console-row" }, el("label", { for: typeId }, "Content-Type"), types));
    } else if (op.body) {
      const areaId = newId("text");
      textarea = el("textarea", { id: areaId, rows: 10, spellcheck: "false", class: "hub-console-code", oninput: () => this.changed(() => (this.bodyText = textarea!.value)), onkeydown: (e: Event) => this.sendKey(e as KeyboardEvent) });
      textarea.value = this.bodyText;
      bodyPart = el(
        "div",
        { class: "hub-console-row" },
        el("label", { for: areaId }, `Body (${op.body.mediaTypes[0]})`),
        op.body.notShown ? el("p", { class: "hub-console-note" }, "Not shown in the requirements: ", op.body.notShown) : null,
        textarea,
      );
    }

    const check = el("div", { class: "hub-console-check", "data-role": "check", "aria-live": "polite" });
    const sendButton = el("button", { type: "submit", class: "hub-console-send" }, "Send");
    const anyway = el("button", { type: "button", hidden: true, onclick: () => void this.send(true) }, "Send anyway");
    const stop = el("button", { type: "button", hidden: true, onclick: () => this.abort?.abort() }, "Stop");
    const copied = el("span", { class: "hub-console-copied", "aria-live": "polite" });
    const curl = el("pre", { class: "hub-console-code", "data-role": "curl", tabindex: "0" });
    const client = el("pre", { class: "hub-console-code", "data-role": "client", tabindex: "0" });
    const answer = el("div", { class: "hub-console-answer", "data-role": "answer", "aria-live": "polite" }, el("p", { class: "hub-console-note" }, "The answer shows here."));
    const server = el("div", { class: "hub-console-server", "data-role": "server" }, "Finding the simulator…");

    const form = el(
      "form",
      { class: "hub-console-request", onsubmit: (e: Event) => { e.preventDefault(); void this.send(false); } },
      server,
      el("div", { class: "hub-console-row" }, el("label", { for: credentialId }, "Credential"), credential),
      pastedRow,
      el("div", { class: "hub-console-row" }, el("label", { for: presetId }, "Request"), presets),
      paramRows.length ? el("fieldset", {}, el("legend", {}, "Parameters"), paramRows) : null,
      bodyPart,
      check,
      el("div", { class: "hub-console-actions" },
        sendButton, anyway, stop,
        el("button", { type: "button", onclick: () => void this.copy(curl, "curl") }, "Copy as curl"),
        el("button", { type: "button", onclick: () => void this.copy(client, "TypeScript") }, "Copy as TypeScript"),
        copied),
      el("details", { class: "hub-console-snippets" }, el("summary", {}, "The request as curl and as TypeScript (the key is $HUB_API_KEY)"), curl, client),
    );
    Object.assign(this.parts, { server, credential, pasted, pastedRow, inputs, textarea, check, sendButton, anyway, stop, curl, client, copied, answer });
    fill(this.body, el("div", { class: "hub-console-grid" }, form, answer));
    this.refresh();
    void this.page.server().then((s) => {
      this.server = s;
      this.showServer();
      this.refresh();
    });
  }

  /** Parameters, body and media type of the first example. */
  private setDefaults(): void {
    for (const p of this.op.parameters) this.values[paramKey(p)] = p.name === "Idempotency-Key" ? uuid() : p.value;
    this.bodyText = startingBody(this.op);
    this.mediaType = this.op.body ? this.op.body.mediaTypes[0]! : null;
  }

  /** Another request: a new Idempotency-Key too (another body under the same key is a conflict). */
  private preset(value: string): void {
    const op = this.op;
    this.setDefaults();
    if (value === WRONG && op.wrong) {
      if (op.wrong.body !== undefined) this.bodyText = op.wrong.body;
      for (const [name, v] of Object.entries(op.wrong.params ?? {})) {
        const p = op.parameters.find((q) => q.name === name);
        if (p) this.values[paramKey(p)] = v;
      }
      if (op.wrong.noCredential) this.pick("none");
    } else {
      const example = op.body?.examples[Number(value)];
      if (example) this.bodyText = example.text;
    }
    for (const [key, input] of this.parts.inputs) input.value = this.values[key] ?? "";
    if (this.parts.textarea) this.parts.textarea.value = this.bodyText;
    this.refresh();
  }

  private pick(value: string): void {
    this.credential = value;
    this.parts.credential.value = value;
    this.parts.pastedRow.hidden = value !== "paste";
    this.refresh();
  }

  private setValue(key: string, value: string): void {
    this.values[key] = value;
    const input = this.parts.inputs.get(key);
    if (input) input.value = value;
    this.refresh();
  }

  private changed(apply: () => void): void {
    apply();
    this.refresh();
  }

  private sendKey(e: KeyboardEvent): void {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void this.send(false);
    }
  }

  private base(): string {
    return this.server?.kind === "simulator" ? this.server.base : this.page.staticBase.value.replace(/\/+$/, "");
  }

  private credentialKind(): CredentialKind {
    return this.credential === "none" ? "none" : this.credential === "session" ? "session" : "key";
  }

  private secret(): string | undefined {
    if (this.credential === "paste") return this.pasted.trim() || undefined;
    const m = /^key:(\d+)$/.exec(this.credential);
    return m ? this.page.model.keys[Number(m[1])]?.secret : undefined;
  }

  private spec(): RequestSpec {
    return {
      operation: this.op,
      base: this.base(),
      values: this.values,
      body: this.op.body && this.op.body.form !== "file" && this.bodyText !== "" ? this.bodyText : null,
      mediaType: this.op.body && (this.op.body.form === "file" ? this.file !== null : this.bodyText !== "") ? this.mediaType : null,
      credential: this.credentialKind(),
    };
  }

  /** The check and the snippets follow every change. */
  private refresh(): void {
    const spec = this.spec();
    this.parts.curl.textContent = curlOf(spec);
    this.parts.client.textContent = clientCodeOf(spec);
    this.parts.anyway.hidden = true;
    this.showCheck(this.check());
  }

  private check(): Detail[] {
    const body = this.op.body;
    return body ? checkBody(this.page.validators, body, this.bodyText) : [];
  }

  private showCheck(details: Detail[]): void {
    if (!this.op.body || this.op.body.form === "file") return fill(this.parts.check);
    if (details.length === 0) return fill(this.parts.check, el("p", { class: "hub-console-ok" }, "The contract takes this body (checked as the simulator checks it)."));
    fill(
      this.parts.check,
      el("p", { class: "hub-console-bad" }, `The contract refuses this body: the simulator would answer 400 with ${details.length === 1 ? "this detail" : `these ${details.length} details`}.`),
      this.detailList(details.map((d) => ({ field: d.field ?? null, reason: d.reason, reason_meaning: this.page.model.reasons[d.reason] ?? null, message: d.message }))),
    );
  }

  private detailList(details: Reason["details"]): HTMLElement {
    return el("ul", { class: "hub-console-details" }, details.map((d) =>
      el("li", {}, d.field ? [el("code", {}, d.field), ": "] : null, el("code", {}, d.reason), d.reason_meaning ? ` (${d.reason_meaning})` : "", `, ${d.message}`)));
  }

  private showServer(): void {
    const s = this.server!;
    if (s.kind === "simulator") {
      const control = s.control.on ? "" : ` The verdicts cannot be read: its ${s.control.why}`;
      fill(this.parts.server, "Sent to the simulator serving these docs, at ", el("code", {}, s.base || "/"), ".", control);
      return;
    }
    // The session cookie is not sent across origins (the simulator's CORS allows no credentials).
    const session = this.parts.credential.querySelector('option[value="session"]') as HTMLOptionElement;
    session.disabled = true;
    session.textContent = "The site's session cookie (only in the docs the simulator serves)";
    if (this.credential === "session") this.pick("none");
    const id = newId("base");
    const input = el("input", { id, value: this.page.staticBase.value, spellcheck: "false", "data-role": "base", oninput: () => this.changed(() => (this.page.staticBase.value = input.value.trim())) });
    const origin = location.origin === "null" || !location.origin.startsWith("http") ? "'*'" : location.origin;
    fill(
      this.parts.server,
      el("p", {}, `No simulator serves these docs (${s.why}). Send to the simulator at:`),
      el("div", { class: "hub-console-row" }, el("label", { for: id }, "Simulator address"), input),
      el("p", { class: "hub-console-note" }, "Let this page call it: start it with ", el("code", {}, `npx generation-hub mock --cors ${origin}`), " (", el("code", {}, "--cors"), " opens /v1 to this page's origin; the verdicts stay on the simulator's own pages)."),
    );
  }

  private async send(anyway: boolean): Promise<void> {
    const details = this.check();
    if (details.length > 0 && !anyway) {
      this.showCheck(details);
      this.parts.anyway.hidden = false;
      this.parts.anyway.focus();
      return;
    }
    if (this.credential === "paste" && !this.secret()) {
      fill(this.parts.answer, el("p", { class: "hub-console-bad" }, "Paste a key first, or pick another credential."));
      return;
    }
    this.parts.anyway.hidden = true;
    this.abort?.abort();
    const abort = new AbortController();
    this.abort = abort;
    const server = this.server ?? (this.server = await this.page.server());
    this.parts.sendButton.disabled = true;
    fill(this.parts.answer, el("p", { class: "hub-console-note" }, "Sending…"));
    const frames = el("ol", { class: "hub-console-frames", "data-role": "frames" });
    const streamState = el("p", { class: "hub-console-note", "data-role": "stream-state" });
    let heartbeats = 0;
    try {
      const { sent, answer } = await send({ ...this.spec(), secret: this.secret(), file: this.file }, abort.signal, {
        frame: (m) => frames.append(el("li", {}, el("code", {}, m.event ?? "message"), m.id ? ` id ${m.id}` : "", el("pre", { class: "hub-console-code" }, pretty(m.data)))),
        comment: () => (streamState.textContent = `Open: ${++heartbeats} heartbeat${heartbeats === 1 ? "" : "s"} so far.`),
        end: (why) => {
          streamState.textContent = `The stream ended: ${why}.`;
          if (this.abort === abort) this.parts.stop.hidden = true;
        },
      });
      const stream = answer.body.kind === "stream";
      this.parts.stop.hidden = !stream;
      if (stream) streamState.textContent = "Open: frames show as they arrive.";
      this.showAnswer(sent, answer, stream ? [streamState, frames] : []);
      const verdict = await readVerdict(server, sent.requestId);
      this.showVerdict(verdict, answer.status);
    } catch (e) {
      if (abort.signal.aborted) return;
      const cross = server.kind === "static";
      fill(this.parts.answer, el("p", { class: "hub-console-bad", "data-role": "answer-status" }, `No answer: ${(e as Error).message}.`), cross ? el("p", {}, "If the simulator runs, it may not open CORS to this page: start it with --cors.") : null);
    } finally {
      this.parts.sendButton.disabled = false;
    }
  }

  private showAnswer(sent: Sent, answer: Answer, stream: HTMLElement[]): void {
    const body = answer.body;
    const bodyPart =
      body.kind === "text" ? el("pre", { class: "hub-console-code", "data-role": "answer-body", tabindex: "0" }, body.text || "(empty body)")
      : body.kind === "file" ? el("div", { "data-role": "answer-body" }, `${body.size} bytes of ${body.type}`, body.imageUrl ? el("img", { src: body.imageUrl, alt: "The file the answer carries" }) : null)
      : stream;
    fill(
      this.parts.answer,
      el("p", { class: `hub-console-status hub-console-status-${String(answer.status)[0]}xx`, "data-role": "answer-status" }, `${answer.status} ${answer.statusText}`, el("span", { class: "hub-console-note" }, ` · ${Math.round(answer.ms)} ms`)),
      el("details", { class: "hub-console-sent" }, el("summary", {}, `Sent: ${sent.method} ${sent.url}`), table(sent.headers)),
      el("h5", {}, "Headers"),
      table(answer.headers.filter(([name]) => KEY_HEADERS.includes(name)), "answer-headers"),
      el("details", {}, el("summary", {}, `All ${answer.headers.length} headers`), table(answer.headers)),
      el("h5", {}, "Body"),
      bodyPart,
      el("div", { class: "hub-console-verdict", "data-role": "verdict" }, el("p", { class: "hub-console-note" }, "Reading the simulator's verdict…")),
    );
  }

  private showVerdict(verdict: Verdict, status: number): void {
    const box = this.parts.answer.querySelector('[data-role="verdict"]');
    if (!box) return;
    if (verdict.kind === "unavailable") {
      fill(box, el("p", { class: "hub-console-note" }, `No verdict: ${verdict.why}.`));
      return;
    }
    const link = el("a", { href: verdict.inspector, target: "_blank", rel: "noopener", "data-role": "inspector-link" }, `request #${verdict.seq} in the inspector`);
    const reason = verdict.reason;
    if (status < 400 || !reason) {
      fill(box, el("p", {}, "Recorded in the simulator's journal: ", link, "."));
      return;
    }
    fill(
      box,
      el("h5", {}, "The simulator's verdict"),
      el("p", { "data-role": "verdict-text", "data-by": reason.by ?? "" }, reason.text),
      reason.details.length ? this.detailList(reason.details) : null,
      el("p", {}, "Open ", link, " for the whole exchange."),
    );
  }

  private async copy(source: HTMLElement, what: string): Promise<void> {
    const text = source.textContent ?? "";
    try {
      await navigator.clipboard.writeText(text);
      this.parts.copied.textContent = `${what} copied.`;
    } catch {
      // No clipboard here (a page not on a secure origin): select it for Ctrl+C.
      (source.closest("details") as HTMLDetailsElement | null)?.setAttribute("open", "");
      getSelection()?.selectAllChildren(source);
      this.parts.copied.textContent = `${what} selected: press Ctrl+C.`;
    }
  }
}

function pretty(data: string): string {
  try {
    return JSON.stringify(JSON.parse(data), null, 2);
  } catch {
    return data;
  }
}

function table(rows: [string, string][], role?: string): HTMLElement {
  return el("table", { class: "hub-console-table", "data-role": role }, el("tbody", {}, rows.map(([k, v]) => el("tr", {}, el("th", { scope: "row" }, k), el("td", {}, v)))));
}
