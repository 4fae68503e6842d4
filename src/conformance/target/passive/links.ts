// What the passive proxy does to Host and to the links a server builds from it, so that a
// client's later requests (a Location, an upload's url, a result's output_urls, the OAuth
// issuer and its endpoints) come back through the proxy and are judged too.
//
// By default the client's Host goes on unchanged: a server that builds its links from
// Host (as the simulator does) then names the proxy in them, and nothing in an answer is
// changed. A server behind another name (TLS, a virtual host, a CDN) must see its own name:
// with `rewriteLinks` the proxy sends the upstream's Host (and the client's as
// X-Forwarded-Host, with X-Forwarded-Proto, for a server that honours them), and rewrites
// the upstream's absolute address back to the proxy's in the answers' Location,
// Content-Location and Link headers and in their JSON and text bodies (as is, `\/`-escaped
// and percent-encoded, as in an `iss` parameter), and drops a Set-Cookie's Domain so the
// browser keeps the cookie for the proxy's host. What is judged is the answer as the server
// sent it; what the client gets is the answer with those links rewritten.

/** The server behind the proxy: its origin, and the path its API sits under ("" or `/sandboxes/sbx_…`). */
export interface Upstream {
  url: URL;
  origin: string;
  prefix: string;
}

export function upstreamOf(baseUrl: string): Upstream {
  const url = new URL(baseUrl.replace(/\/+$/, "").replace(/\/v1$/, ""));
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new RangeError(`the upstream must be an http: or https: address, got ${JSON.stringify(baseUrl)}`);
  return { url, origin: url.origin, prefix: url.pathname.replace(/\/+$/, "") };
}

/**
 * The path sent upstream for the path a client asked for: the upstream's prefix put in
 * front, unless the client's path has it already (a link the server built with it, which
 * named the proxy's host).
 */
export function upstreamPath(up: Upstream, path: string): string {
  if (!up.prefix || hasPrefix(up.prefix, path)) return path;
  return `${up.prefix}${path.startsWith("/") ? path : `/${path}`}`;
}

/** The API's path of an upstream path (the prefix taken off): what the contract names. */
export function apiPath(up: Upstream, path: string): string {
  return up.prefix && hasPrefix(up.prefix, path) ? path.slice(up.prefix.length) || "/" : path;
}

function hasPrefix(prefix: string, path: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`);
}

/** Headers that belong to one connection, never forwarded (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "proxy-authenticate"]);

/** The header lines to forward (one hop's own taken out, with those the Connection header names). */
export function forwarded(pairs: readonly [string, string][]): [string, string][] {
  const named = new Set(pairs.filter(([n]) => n === "connection").flatMap(([, v]) => v.split(",").map((s) => s.trim().toLowerCase())));
  return pairs.filter(([n]) => !HOP_BY_HOP.has(n) && !named.has(n));
}

/** The request's header lines as the upstream gets them: the client's Host kept, or (`rewriteLinks`) the upstream's, the client's as X-Forwarded-Host. */
export function upstreamRequestHeaders(pairs: readonly [string, string][], up: Upstream, rewriteLinks: boolean): [string, string][] {
  const lines = forwarded(pairs);
  if (!rewriteLinks) return lines;
  const clientHost = lines.find(([n]) => n === "host")?.[1];
  return [
    ...lines.filter(([n]) => n !== "host" && n !== "x-forwarded-host" && n !== "x-forwarded-proto"),
    ["host", up.url.host],
    ...(clientHost ? ([["x-forwarded-host", clientHost], ["x-forwarded-proto", "http"]] as [string, string][]) : []),
  ];
}

/** Rewrites the upstream's absolute address to the proxy's in what the client gets. */
export class LinkRewriter {
  readonly #spellings: [RegExp, string][];

  /** `from`: the upstream's origin and prefix; `to`: the proxy's address as the client named it (`http://127.0.0.1:4011`). */
  constructor(from: string, to: string) {
    const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    const end = "(?=[/?#\"'\\s\\\\&<>]|%2F|%3F|$)";
    this.#spellings = [
      [new RegExp(`${escape(from)}${end}`, "g"), to],
      [new RegExp(`${escape(from.replace(/\//g, "\\/"))}${end}`, "g"), to.replace(/\//g, "\\/")],
      [new RegExp(`${escape(encodeURIComponent(from))}${end}`, "gi"), encodeURIComponent(to)],
    ];
  }

  text(text: string): string {
    let out = text;
    for (const [pattern, to] of this.#spellings) out = out.replace(pattern, to);
    return out;
  }

  /** An answer's header line: links rewritten, a Set-Cookie's Domain dropped. */
  header(name: string, value: string): string {
    if (name === "location" || name === "content-location" || name === "link") return this.text(value);
    if (name === "set-cookie") return value.replace(/;\s*domain=[^;]*/gi, "");
    return value;
  }
}
