// The panel's request as something to paste elsewhere: a curl line and code for the typed
// client (`@generation-hub/api`). The credential is never written: an API key is
// `$HUB_API_KEY` (`process.env.HUB_API_KEY` in code), the session cookie `$HUB_COOKIE`.
// Runs in the page and in the tests (which type-check the code it writes).
import type { ConsoleOperation, ConsoleParameter } from "../model.ts";

export type CredentialKind = "none" | "session" | "key";

export interface RequestSpec {
  operation: Pick<ConsoleOperation, "method" | "path" | "parameters" | "answers" | "body">;
  /** Where the API is: the simulator's address (with a sandbox's prefix). */
  base: string;
  /** Parameter values by `paramKey`; an empty value is not sent. */
  values: Readonly<Record<string, string>>;
  /** The body as text (JSON or a form); null for none or a file. */
  body: string | null;
  mediaType: string | null;
  credential: CredentialKind;
}

export const paramKey = (p: Pick<ConsoleParameter, "in" | "name">) => `${p.in}:${p.name}`;

/** The body a panel starts with: the first example; `{}` for a required JSON body the contract shows none of. */
export function startingBody(op: Pick<ConsoleOperation, "body">): string {
  const body = op.body;
  if (!body || body.form === "file") return "";
  return body.examples[0]?.text ?? (body.form === "json" && body.required ? "{}" : "");
}

/** The parameters that are sent: those with a value. */
export function sentParameters(spec: RequestSpec): (ConsoleParameter & { sent: string })[] {
  return spec.operation.parameters.flatMap((p) => {
    const sent = spec.values[paramKey(p)] ?? "";
    return sent === "" ? [] : [{ ...p, sent }];
  });
}

/** The request's address: the path with its parameters filled in, and the query. */
export function urlOf(spec: RequestSpec): string {
  const sent = sentParameters(spec);
  const path = spec.operation.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const p = sent.find((s) => s.in === "path" && s.name === name);
    return p ? encodeURIComponent(p.sent) : whole;
  });
  const query = new URLSearchParams(sent.filter((p) => p.in === "query").map((p) => [p.name, p.sent])).toString();
  return `${spec.base}${path}${query ? `?${query}` : ""}`;
}

/** `text` as one POSIX shell word. */
const shellWord = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function curlOf(spec: RequestSpec): string {
  const words = ["curl"];
  if (spec.operation.answers === "event-stream") words.push("-N");
  if (spec.operation.method !== "GET") words.push("-X", spec.operation.method);
  words.push(shellWord(urlOf(spec)));
  if (spec.credential === "key") words.push("-H", `"Authorization: Bearer $HUB_API_KEY"`);
  if (spec.credential === "session") words.push("-H", `"Cookie: $HUB_COOKIE"`);
  for (const p of sentParameters(spec)) if (p.in === "header") words.push("-H", shellWord(`${p.name}: ${p.sent}`));
  if (spec.mediaType) words.push("-H", shellWord(`Content-Type: ${spec.mediaType}`));
  if (spec.operation.body?.form === "file") words.push("--data-binary", "@file");
  else if (spec.body !== null) words.push("--data-raw", shellWord(spec.body));
  return words.join(" ");
}

/** A parameter's value as TypeScript: a number for a numeric parameter, else a string. */
function literal(p: ConsoleParameter & { sent: string }): string {
  if ((p.type === "integer" || p.type === "number") && /^-?\d+(\.\d+)?$/.test(p.sent)) return p.sent;
  if (p.type === "boolean" && (p.sent === "true" || p.sent === "false")) return p.sent;
  return JSON.stringify(p.sent);
}

/** An object literal of `key: value` lines (keys quoted where they must be). */
function objectLiteral(entries: [string, string][], indent: string): string {
  const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));
  return `{ ${entries.map(([k, v]) => `${key(k)}: ${v}`).join(", ")} }`.replace(/\n/g, `\n${indent}`);
}

/** A JSON body as a TypeScript expression (JSON is one), indented to sit in the call. */
function bodyLiteral(text: string, indent: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2).replace(/\n/g, `\n${indent}`);
  } catch {
    return `${JSON.stringify(text)} as never /* not JSON */`;
  }
}

export function clientCodeOf(spec: RequestSpec): string {
  const op = spec.operation;
  const baseUrl = JSON.stringify(spec.base);
  const options = [`baseUrl: ${baseUrl}`];
  if (spec.credential === "key") options.push("apiKey: process.env.HUB_API_KEY!");
  if (spec.credential === "session") options.push(`credentials: "include"`);
  const lines = [`import { createHubClient } from "@generation-hub/api";`, ""];
  const sent = sentParameters(spec);
  if (op.body?.form === "file") lines.splice(0, 0, `import { readFile } from "node:fs/promises";`);
  lines.push(`const hub = createHubClient({ ${options.join(", ")} });`);
  if (spec.credential === "session") lines.push("// In the site's own pages: the browser sends the session cookie.");

  if (op.answers === "event-stream") {
    const query = sent.find((p) => p.in === "query" && p.name === "types");
    const lastEventId = sent.find((p) => p.in === "header" && p.name === "Last-Event-ID");
    const eventOptions: [string, string][] = [];
    if (query) eventOptions.push(["types", JSON.stringify(query.sent.split(",").map((t) => t.trim()).filter(Boolean))]);
    if (lastEventId) eventOptions.push(["lastEventId", JSON.stringify(lastEventId.sent)]);
    lines.push("", `const stream = hub.events(${eventOptions.length ? objectLiteral(eventOptions, "") : ""});`);
    lines.push("for await (const event of stream) console.log(event.event, event.data);");
    return lines.join("\n") + "\n";
  }

  const params: [string, string][] = [];
  // The client's types require the required parameters: one left empty is written empty, to fill in.
  const written = op.parameters.flatMap((p) => {
    const value = spec.values[paramKey(p)] ?? "";
    return value !== "" || (p.required && p.in !== "header") ? [{ ...p, sent: value }] : [];
  });
  for (const where of ["path", "query", "header"] as const) {
    const own = written.filter((p) => p.in === where);
    if (own.length) params.push([where, objectLiteral(own.map((p) => [p.name, literal(p)]), "    ")]);
  }
  const init: string[] = [];
  if (params.length) init.push(`  params: ${objectLiteral(params, "  ")},`);
  if (op.body?.form === "file") {
    lines.push(`const file = await readFile("upload.png"); // the file to send`);
    init.push(`  body: file as never,`, `  bodySerializer: (body) => body as BodyInit,`, `  headers: { "Content-Type": ${JSON.stringify(spec.mediaType ?? "application/octet-stream")} },`);
  } else if (op.body?.form === "form" && spec.body !== null) {
    const fields = Object.fromEntries(new URLSearchParams(spec.body));
    init.push(`  body: ${JSON.stringify(fields, null, 2).replace(/\n/g, "\n  ")} as never,`, `  bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),`, `  headers: { "Content-Type": "application/x-www-form-urlencoded" },`);
  } else if (spec.body !== null) {
    init.push(`  body: ${bodyLiteral(spec.body, "  ")},`);
  }
  if (op.answers === "file") init.push(`  parseAs: "blob",`);
  if (op.answers === "html") init.push(`  parseAs: "text",`);
  const call = `hub.api.${op.method}(${JSON.stringify(op.path)}${init.length ? `, {\n${init.join("\n")}\n}` : ""})`;
  lines.push("", `// The bare client answers { data, error, response }; hub.${op.method}(...) throws HubApiError instead.`);
  lines.push(`const { data, error, response } = await ${call};`);
  lines.push(`console.log(response.status, response.headers.get("x-request-id"), error ?? data);`);
  return lines.join("\n") + "\n";
}
