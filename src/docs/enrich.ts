// The docs copy of the bundle: the contract as published plus what a reader of the
// reference needs beside it. Nothing here changes the contract's meaning; `generated/` is
// never touched (the copy is a structuredClone).
//   - per operation, a table of the error codes it can return (status, code, meaning),
//     from the operation's error examples (one per code, named after it) and the
//     error-code table, collapsed under the description;
//   - the requirements' gaps (`x-not-shown`) written into the descriptions a reader sees;
//   - code samples (`x-codeSamples`) from docs/samples/<operationId>.ts;
//   - links from the overview to the guides.
import { METHODS, contract, errorCodes, type Json, type JsonObject } from "../contract/index.ts";
import { at, derefIn } from "./json.ts";
import { gapAnnotations } from "./gaps.ts";

export interface ErrorRow {
  /** HTTP status, or "303 redirect" for errors carried by the authorization redirect. */
  status: string;
  code: string;
  meaning: string;
  /** How the code reaches the caller. */
  form: "envelope" | "oauth" | "redirect" | "page";
}

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

export interface EnrichOptions {
  /** Code samples by operationId. */
  samples?: ReadonlyMap<string, CodeSample[]>;
  /** Guides to link from the overview: href (relative to the reference page) and title. */
  guides?: { href: string; title: string }[];
  /** Href of the gaps guide, relative to the reference page. */
  gapsHref?: string;
  /** Href of the errors guide, relative to the reference page. */
  errorsHref?: string;
}

const isError = (status: string) => /^[45]/.test(status);
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
const cell = (text: string) => oneLine(text).replace(/\|/g, "\\|");

/** The error codes an operation can return, from its error examples and the code table. */
export function errorRows(op: JsonObject, doc: JsonObject = contract): ErrorRow[] {
  const rows: ErrorRow[] = [];
  for (const [status, raw] of Object.entries((op.responses as JsonObject) ?? {})) {
    const response = derefIn(doc, raw);
    // Errors carried in the query of a redirect (OAuth authorization).
    const redirect = response["x-redirect-query"] as JsonObject | undefined;
    const redirectErrors = ((redirect?.properties as JsonObject | undefined)?.error as JsonObject | undefined)?.anyOf as
      | JsonObject[]
      | undefined;
    for (const item of redirectErrors ?? []) {
      rows.push({ status: `${status} redirect`, code: String(item.const), meaning: String(item.description ?? ""), form: "redirect" });
    }
    if (!isError(status)) continue;
    for (const [mediaType, media] of Object.entries((response.content as JsonObject) ?? {})) {
      for (const [name, rawExample] of Object.entries(((media as JsonObject).examples as JsonObject) ?? {})) {
        const example = derefIn(doc, rawExample);
        const value = example.value as Json;
        const known = errorCodes.get(name);
        if (mediaType === "text/html") {
          rows.push({ status, code: name, meaning: String(example.summary ?? example.description ?? ""), form: "page" });
        } else if (known && value && typeof value === "object" && !Array.isArray(value) && "error" in value && typeof value.error === "object") {
          if (known.status !== Number(status)) {
            throw new Error(`${String(op.operationId)}: example ${name} sits under ${status} but the code table says ${known.status}`);
          }
          rows.push({ status, code: name, meaning: known.meaning, form: "envelope" });
        } else {
          // OAuth protocol routes answer the RFC 6749 / 7591 form (`error`, `error_description`).
          const described = value && typeof value === "object" && !Array.isArray(value) ? value.error_description : undefined;
          rows.push({
            status,
            code: name,
            meaning: oneLine(String(example.description ?? response.description ?? described ?? "")),
            form: "oauth",
          });
        }
      }
    }
  }
  const order = (s: string) => Number.parseInt(s, 10) || 0;
  return rows.sort((a, b) => order(a.status) - order(b.status) || a.code.localeCompare(b.code));
}

/** The class of the collapsed error-code table on each operation of the reference. */
export const ERROR_TABLE_CLASS = "error-codes";

export function errorTableMarkdown(op: JsonObject, errorsHref?: string, doc: JsonObject = contract): string {
  const rows = errorRows(op, doc);
  if (rows.length === 0) return "";
  const lead = errorsHref
    ? `Branch on the code, never on the status or the message ([how](${errorsHref})).`
    : "Branch on the code, never on the status or the message.";
  const forms = new Set(rows.map((r) => r.form));
  const notes: string[] = [];
  if (forms.has("envelope")) notes.push("Codes are `error.code` of the error envelope.");
  if (forms.has("oauth")) notes.push("OAuth errors use the protocol's own form: `error` and `error_description`.");
  if (forms.has("redirect")) notes.push("Redirect errors arrive in the `error` query parameter of the redirect to `redirect_uri`.");
  if (forms.has("page")) notes.push("Pages are shown to the user in the browser and never returned to the application.");
  const label = (r: ErrorRow) =>
    r.form === "page" ? `page \`${r.code}\`` : r.form === "oauth" ? `\`${r.code}\` (OAuth)` : r.form === "redirect" ? `\`${r.code}\` (redirect)` : `\`${r.code}\``;
  // Closed by default: on an operation's page readers look for the request body first, and
  // Redoc shows an operation's description above it. (Blank lines around the Markdown
  // inside let Redoc render it as Markdown.)
  return [
    `<details class="${ERROR_TABLE_CLASS}">`,
    `<summary><strong>Error codes</strong> (${rows.length}): status, code and meaning</summary>`,
    "",
    `${lead} ${notes.join(" ")}`,
    "",
    "| Status | Code | Meaning |",
    "|---|---|---|",
    ...rows.map((r) => `| ${r.status} | ${label(r)} | ${cell(r.meaning)} |`),
    "",
    "</details>",
  ].join("\n");
}

function appendDescription(node: JsonObject, text: string): void {
  const current = typeof node.description === "string" ? node.description.trimEnd() : "";
  node.description = current ? `${current}\n\n${text}` : text;
}

/** Writes each `x-not-shown` into the description of the nearest thing Redoc shows. */
function noteGaps(doc: JsonObject, gapsHref?: string): void {
  const byTarget = new Map<JsonObject, string[]>();
  const add = (target: JsonObject | undefined, quote: string, pointer: string) => {
    if (!target) throw new Error(`x-not-shown at ${pointer}: nothing to describe it on`);
    const list = byTarget.get(target) ?? [];
    if (!list.includes(quote)) list.push(quote);
    byTarget.set(target, list);
  };
  for (const { path, quote } of gapAnnotations(doc)) {
    const pointer = path.join("/");
    const node = at(doc, path);
    if ((path[0] === "paths" || path[0] === "webhooks") && path.length === 2) {
      // A path item: Redoc shows no path descriptions, so every operation of it gets the note.
      for (const method of METHODS) if (node?.[method]) add(node[method] as JsonObject, quote, pointer);
      continue;
    }
    if (path[path.length - 2] === "content") {
      // A media type: describe it on its request body or response.
      add(at(doc, path.slice(0, -2)), quote, pointer);
      continue;
    }
    add(node, quote, pointer);
  }
  for (const [target, quotes] of byTarget) {
    const more = gapsHref ? ` ([every gap](${gapsHref}))` : "";
    const lines = quotes.map((q) => `> **Not shown in the requirements:** ${oneLine(q)}`);
    appendDescription(target, `${lines.join("\n>\n")}${more ? `\n>\n> ${more.trim()}` : ""}`);
  }
}

/** The docs copy of the contract: a deep copy with the reader's additions. */
export function docsDocument(options: EnrichOptions = {}, source: JsonObject = contract): JsonObject {
  const doc = structuredClone(source) as JsonObject;
  // Gaps first: the annotations are read from the copy before anything else is added.
  noteGaps(doc, options.gapsHref);
  for (const group of ["paths", "webhooks"] as const) {
    for (const raw of Object.values((doc[group] as JsonObject | undefined) ?? {})) {
      const item = derefIn(doc, raw);
      for (const method of METHODS) {
        const op = item[method] as JsonObject | undefined;
        if (!op) continue;
        const table = errorTableMarkdown(op, options.errorsHref, source);
        if (table) appendDescription(op, table);
        const samples = options.samples?.get(String(op.operationId));
        if (samples?.length) op["x-codeSamples"] = samples.map((s) => ({ ...s })) as unknown as Json;
      }
    }
  }
  if (options.guides?.length) {
    const info = doc.info as JsonObject;
    const list = options.guides.map((g) => `- [${g.title}](${g.href})`).join("\n");
    info.description = `## Guides\n\n${list}\n\n## Overview\n\n${String(info.description ?? "")}`;
  }
  return doc;
}
