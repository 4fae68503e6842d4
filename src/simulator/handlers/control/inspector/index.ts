// The request inspector's rows of the control table: the page at /_sim/ui/ with its script,
// style and push channel, and the routes it reads, which scripts and tests read too:
//   GET    /_sim/requests[?status=&route=&credential=&q=&request_id=&after=&limit=]
//                                   the journal's rows, newest first, filtered
//   GET    /_sim/requests/{seq}     one whole exchange, masked, with a curl line
//   DELETE /_sim/requests           forgets every row
//   GET    /_sim/overview           the state as the page shows it, without a secret
//   GET    /_sim/ui/                the page; ui/app.js, ui/app.css; ui/events (push channel)
// The page changes the hub only through the other control routes (reset, clock,
// outcomes, scenarios, faults). The inspector's own reads stay out of the journal.
import { refuse } from "../../../domain/refusal.ts";
import { baseHeaders, isRefusal, json, type Ctx } from "../../../pipeline/context.ts";
import type { BodyAnswer } from "../../../pipeline/exchange.ts";
import type { ControlHandler, ControlRoutes } from "../body.ts";
import { inspectorChannel } from "./channel.ts";
import { overviewOf } from "./overview.ts";
import { inspectorPage, PAGE_POLICY } from "./page.ts";
import { INSPECTOR_SCRIPT } from "./script.ts";
import { INSPECTOR_STYLE } from "./style.ts";
import { CredentialNames, exchangeOf, filterOf, passes, summaryOf } from "./views.ts";

/** Answers the inspector's reads; the journal keeps out of them (the page reads every second or so). */
function quiet(handler: ControlHandler): ControlHandler {
  return (ctx, params) => {
    ctx.journal = false;
    return handler(ctx, params);
  };
}

/** Neither framed, nor read by another origin's page (CORP), nor sniffed, nor cached. */
function asset(ctx: Ctx, type: string, body: string, extra: Record<string, string> = {}): BodyAnswer {
  return {
    kind: "body",
    status: 200,
    headers: {
      ...baseHeaders(ctx),
      "content-type": type,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "cross-origin-resource-policy": "same-origin",
      ...extra,
    },
    body,
  };
}

const requests: ControlHandler = (ctx) => {
  const journal = ctx.hub.journal;
  const filter = filterOf(ctx.query);
  if (isRefusal(filter)) return filter;
  const names = new CredentialNames(ctx.hub);
  const data = [];
  for (const entry of journal.newest()) {
    if (entry.seq <= filter.after || data.length >= filter.limit) break;
    if (passes(entry, filter, names)) data.push(summaryOf(entry, names));
  }
  return json(ctx, 200, { data, journal: { size: journal.capacity, recorded: journal.recorded } });
};

const exchange: ControlHandler = (ctx, { seq }) => {
  const entry = /^\d{1,15}$/.test(seq!) ? ctx.hub.journal.find(Number(seq)) : undefined;
  if (!entry) return refuse("not_found", { message: `No request ${seq!.slice(0, 40)} in the journal: it keeps the ${ctx.hub.journal.capacity} most recent, from the last reset on.` });
  return json(ctx, 200, exchangeOf(entry, new CredentialNames(ctx.hub)));
};

export const inspectorControl: ControlRoutes = {
  "GET requests": quiet(requests),
  "GET requests/{seq}": quiet(exchange),
  "DELETE requests": (ctx) => {
    ctx.hub.journal.clear();
    return json(ctx, 200, { cleared: true });
  },
  "GET overview": quiet((ctx) => json(ctx, 200, overviewOf(ctx.hub))),
  "GET ui": quiet((ctx) => asset(ctx, "text/html; charset=utf-8", inspectorPage(ctx.basePath), { "content-security-policy": PAGE_POLICY, "x-frame-options": "DENY", "referrer-policy": "same-origin" })),
  "GET ui/app.js": quiet((ctx) => asset(ctx, "text/javascript; charset=utf-8", INSPECTOR_SCRIPT)),
  "GET ui/app.css": quiet((ctx) => asset(ctx, "text/css; charset=utf-8", INSPECTOR_STYLE)),
  "GET ui/events": inspectorChannel,
};
