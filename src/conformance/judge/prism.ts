// Prism as a second opinion (`--prism`): a `prism proxy` in front of the server says in the
// `sl-violations` header of every answer where the answer, or the request, departs from
// the bundled document. Its findings are kept apart from the verdicts; a request the suite
// made invalid on purpose (a refusal check) has its request findings marked as such.
import type { Exchange } from "../target/exchange.ts";
import type { Delivery, ExchangeSink } from "../target/sink.ts";

export interface PrismFinding {
  request: string;
  requestId?: string;
  location: string[];
  severity: string;
  code: string | number;
  message: string;
  /** The suite sent an invalid request on purpose (a refusal check). */
  deliberate: boolean;
}

export class PrismFindings implements ExchangeSink {
  readonly findings: PrismFinding[] = [];

  exchange(ex: Exchange, how: Delivery): void {
    if (how.bare) return;
    const raw = ex.headers.get("sl-violations");
    if (!raw) return;
    let list: unknown;
    try {
      list = JSON.parse(raw);
    } catch {
      return;
    }
    if (!Array.isArray(list)) return;
    for (const v of list as { location?: string[]; severity?: string; code?: string | number; message?: string }[]) {
      this.findings.push({
        request: ex.cite.request ?? `${ex.method} ${ex.path}`,
        requestId: ex.cite.requestId,
        location: Array.isArray(v.location) ? v.location.map(String) : [],
        severity: String(v.severity ?? ""),
        code: v.code ?? "",
        message: String(v.message ?? ""),
        deliberate: false,
      });
    }
  }

  deliberate(ex: Exchange): void {
    for (const f of this.findings) if (f.requestId === ex.cite.requestId && f.location[0] === "request") f.deliberate = true;
  }
}
