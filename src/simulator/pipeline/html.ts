// Small HTML pages of the simulator's site side (session sign-in, OAuth consent): plain
// forms without scripts, every value escaped, never framed, never cached.
import { baseHeaders, headerOf, type Ctx } from "./context.ts";
import type { BodyAnswer } from "./exchange.ts";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const STYLE = `body{font:16px/1.45 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.4rem}code{background:#f1f3f5;padding:0 .2em;border-radius:3px;word-break:break-all}
fieldset{border:1px solid #ccd;border-radius:6px;margin:1rem 0}label{display:block;margin:.35rem 0}
.scope small{color:#555;display:block;margin-left:1.6rem}button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}
.error{color:#a00}.who{color:#555;font-size:.9rem}`;

/** A whole page; `body` is HTML built with escapeHtml. */
export function htmlPage(ctx: Ctx, status: number, title: string, body: string, extra?: Record<string, string>): BodyAnswer {
  const headers = baseHeaders(ctx);
  headers["content-type"] = "text/html; charset=utf-8";
  headers["cache-control"] = "no-store";
  headers["x-frame-options"] = "DENY";
  headers["content-security-policy"] = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";
  // Not no-referrer: under it a browser sends `Origin: null` with the page's own form posts,
  // which the site's guard could not tell from a sandboxed page's (pipeline/guard.ts).
  headers["referrer-policy"] = "same-origin";
  if (extra) Object.assign(headers, extra);
  const text = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>\n<body>\n${body}\n</body></html>\n`;
  return { kind: "body", status, headers, body: text };
}

/** A 303 to `location` (a form's answer). */
export function seeOther(ctx: Ctx, location: string, extra?: Record<string, string>): BodyAnswer {
  const headers = baseHeaders(ctx);
  headers.location = location;
  headers["cache-control"] = "no-store";
  if (extra) Object.assign(headers, extra);
  return { kind: "body", status: 303, headers, body: "" };
}

/** Whether the caller prefers JSON to HTML (`Accept: application/json` before any HTML type). */
export function wantsJson(ctx: Ctx): boolean {
  const accept = (headerOf(ctx, "accept") ?? "").toLowerCase();
  const jsonAt = accept.search(/application\/(?:[a-z0-9.+-]*\+)?json/);
  if (jsonAt < 0) return false;
  const htmlAt = accept.indexOf("text/html");
  return htmlAt < 0 || jsonAt < htmlAt;
}

/** The fields of an `application/x-www-form-urlencoded` or JSON body (strings only; repeated names kept). */
export function formFields(ctx: Ctx): URLSearchParams | undefined {
  const body = ctx.req.body;
  const type = (headerOf(ctx, "content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!body || body.length === 0) return new URLSearchParams();
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    return undefined;
  }
  if (type === "application/x-www-form-urlencoded") return new URLSearchParams(text);
  if (type === "application/json") {
    try {
      const value = JSON.parse(text) as unknown;
      if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
      const out = new URLSearchParams();
      for (const [k, v] of Object.entries(value)) {
        if (typeof v === "string") out.append(k, v);
        else if (Array.isArray(v)) for (const item of v) if (typeof item === "string") out.append(k, item);
      }
      return out;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
