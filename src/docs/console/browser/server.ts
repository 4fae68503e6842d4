// Where the panel's requests go, and whether the simulator's verdict can be read.
//
// The docs are served by the simulator at `<prefix>/docs/`: the prefix is empty at its root
// and `/sandboxes/<id>` in a sandbox. Every request goes to the page's own origin under that
// prefix, never to a fixed root, so a page opened in a sandbox talks to that sandbox. The
// simulator is told apart from any other web server by its journal (`GET <prefix>/_sim/
// requests`, which its own pages may read, as the inspector does); elsewhere (the static
// site, `npm run docs`) the reader gives the simulator's address, which must open CORS to
// the page (`--cors`), and no verdict can be read (CORS never opens /_sim/).

import type { ReasonView } from "../../../simulator/handlers/control/inspector/views.ts";

export type Control = { on: true; journalSize: number } | { on: false; why: string };

export type Server =
  | { kind: "simulator"; base: string; control: Control }
  | { kind: "static"; why: string };

/** The path before `/docs/` in a page's path (`""` at the root, `/sandboxes/a` in a sandbox); undefined outside a docs folder. */
export function mountPrefix(pathname: string): string | undefined {
  const at = pathname.lastIndexOf("/docs/");
  return at < 0 ? undefined : pathname.slice(0, at);
}

/** What an answer of `GET <base>/_sim/requests?limit=1` says of the server behind the page. */
export function serverFrom(base: string, status: number, requestId: string | null, body: unknown): Server {
  const parsed = body as { journal?: { size?: unknown }; error?: { code?: unknown; message?: unknown } } | null;
  if (status === 200 && parsed && typeof parsed.journal?.size === "number") return { kind: "simulator", base, control: { on: true, journalSize: parsed.journal.size } };
  if (requestId && typeof parsed?.error?.code === "string") {
    const message = typeof parsed.error.message === "string" ? parsed.error.message : `${status} ${parsed.error.code}`;
    return { kind: "simulator", base, control: { on: false, why: `control interface is off: ${message}` } };
  }
  return { kind: "static", why: `no simulator answers at ${base}: these docs are served by another server` };
}

/** Finds out what serves the page at `location`. */
export async function probeServer(location: Pick<Location, "protocol" | "origin" | "pathname">): Promise<Server> {
  if (location.protocol !== "http:" && location.protocol !== "https:") return { kind: "static", why: "the page was opened from a file" };
  const prefix = mountPrefix(location.pathname);
  if (prefix === undefined) return { kind: "static", why: "the page is not in a docs folder" };
  const base = location.origin + prefix;
  try {
    const answer = await fetch(`${base}/_sim/requests?limit=1`, { credentials: "omit", cache: "no-store" });
    let body: unknown = null;
    try {
      body = await answer.json();
    } catch {
      // Not JSON: not the simulator.
    }
    return serverFrom(base, answer.status, answer.headers.get("x-request-id"), body);
  } catch {
    return { kind: "static", why: `nothing answers at ${base}` };
  }
}

/** A refusal's reason as the journal gives it (the inspector's words). */
export type Reason = ReasonView;

export type Verdict =
  | { kind: "row"; seq: number; inspector: string; reason: Reason | null }
  | { kind: "unavailable"; why: string };

/** The address of a journal row in the inspector (the inspector opens the row named there). */
export const inspectorLink = (base: string, seq: number) => `${base}/_sim/ui/#request=${seq}`;

/** What the journal's answer to `?request_id=` says of the request. */
export function verdictFrom(base: string, status: number, body: unknown): Verdict {
  const parsed = body as { data?: { seq?: unknown; reason?: Reason | null }[]; journal?: { size?: unknown }; error?: { message?: unknown } } | null;
  if (status !== 200 || !parsed || !Array.isArray(parsed.data)) {
    const message = typeof parsed?.error?.message === "string" ? `: ${parsed.error.message}` : "";
    return { kind: "unavailable", why: `the simulator's journal could not be read (${status}${message})` };
  }
  if (parsed.journal?.size === 0) return { kind: "unavailable", why: "the simulator's journal is off (--journal-size 0): it records nothing, so there is no verdict to read" };
  const row = parsed.data[0];
  if (!row || typeof row.seq !== "number") {
    return { kind: "unavailable", why: `the journal no longer holds this request: it keeps the ${String(parsed.journal?.size ?? "")} most recent, from the last reset on` };
  }
  return { kind: "row", seq: row.seq, inspector: inspectorLink(base, row.seq), reason: row.reason ?? null };
}

/** Reads the verdict on the request sent with `requestId`, or says why it cannot. */
export async function readVerdict(server: Server, requestId: string): Promise<Verdict> {
  if (server.kind === "static") {
    return { kind: "unavailable", why: "these docs are not served by the simulator: its verdicts are read from its journal, which only its own pages may read (CORS never opens /_sim/)" };
  }
  if (!server.control.on) return { kind: "unavailable", why: `the simulator's ${server.control.why}` };
  try {
    const answer = await fetch(`${server.base}/_sim/requests?request_id=${encodeURIComponent(requestId)}`, { credentials: "omit", cache: "no-store" });
    return verdictFrom(server.base, answer.status, await answer.json().catch(() => null));
  } catch (e) {
    return { kind: "unavailable", why: `the simulator's journal could not be read (${(e as Error).message})` };
  }
}
