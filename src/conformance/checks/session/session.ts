// The site session cookie and the subscription actions. The seed shows neither the
// cookie's name nor how it is obtained, so the caller brings a session (`--session-cookie`,
// with an allowed `--origin`). Read-only: the cookie is a credential; a mutating request
// over it without an allowed Origin answers 403 `origin_mismatch` without a RateLimit
// pair (the probe is the batch status read, a POST that changes nothing); API keys never
// get `origin_mismatch`; one window. With `--allow-writes`: the four subscription actions,
// leaving the subscription as it was found (cancelled again, or renewing again).
import { fakeIds } from "../../kit/ids.ts";
import { windowOf } from "../../target/rate-window.ts";
import { errorCodeOf, type Exchange, type RequestSpec, succeeded } from "../../target/exchange.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

const FOREIGN_ORIGIN = "https://conformance.invalid";
const SUBS = ["SUBS-1", "SUBS-2", "SUBS-3", "SUBS-4"];


/** The request options of a call over the session cookie (no Authorization). */
type Session = Pick<RequestSpec, "key" | "label" | "rule" | "headers" | "direct">;

export const session: Check = {
  name: "the site session cookie and the subscription actions",
  rules: ["AUTH-3", "LIM-2", ...SUBS],
  async run(c) {
    // An API key never gets origin_mismatch, whatever Origin it comes with.
    const keyed = await c.post("/v1/generations/status", { ids: fakeIds(1) }, "AUTH-3", { headers: { origin: FOREIGN_ORIGIN } });
    c.expect(keyed.status === 200, "AUTH-3", `an API key on a POST with a foreign Origin answered ${keyed.status} ${errorCodeOf(keyed.json) ?? ""}; origin_mismatch is for the session cookie only`, keyed);

    const s = c.settings.options.session;
    if (!s) {
      c.skip(["AUTH-3", ...SUBS], "no site session given (--session-cookie with --origin): the seed shows neither the cookie's name nor how it is obtained");
      return;
    }
    const policies = new Set<string>();
    // Never through `prism proxy`: the contract's cookie scheme names a placeholder (the
    // seed does not show the cookie's name), so Prism would refuse every session request.
    const as = (rule: string, origin?: string): Session => ({ key: null, label: "session", rule, direct: true, headers: { cookie: s.cookie, ...(origin ? { origin } : {}) } });
    const seen = (ex: Exchange) => {
      const p = windowOf(ex.headers)?.policy;
      if (p) policies.add(p);
      return ex;
    };

    const who = seen(await c.get("/v1/whoami", "AUTH-3", as("AUTH-3")));
    if (!c.expect(who.status === 200, "AUTH-3", `GET /v1/whoami with the session cookie answered ${who.status} ${errorCodeOf(who.json) ?? ""}: the session given is not usable`, who)) {
      c.skip(SUBS, "the session given was refused");
      return;
    }
    // Mutating requests need an allowed Origin: refused before the limiter.
    for (const [what, origin] of [["no Origin", undefined], [`the foreign Origin ${FOREIGN_ORIGIN}`, FOREIGN_ORIGIN]] as const) {
      const ex = await c.post("/v1/generations/status", { ids: fakeIds(1) }, "AUTH-3", as("AUTH-3", origin));
      if (c.refusal(ex, "origin_mismatch", "AUTH-3", `a POST over the session cookie with ${what}`)) {
        const pair = ["ratelimit", "ratelimit-policy"].filter((h) => ex.headers.has(h));
        c.expect(pair.length === 0, "LIM-2", `an origin_mismatch answer carries ${pair.join(" and ")}; it comes without them`, ex);
      }
    }
    if (s.origin) {
      const ex = seen(await c.post("/v1/generations/status", { ids: fakeIds(1) }, "AUTH-3", as("AUTH-3", s.origin)));
      c.expect(ex.status === 200, "AUTH-3", `a POST over the session cookie with the allowed Origin ${s.origin} answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}`, ex);
    } else c.skip(["AUTH-3"], "a mutating request with an allowed Origin not tried (no --origin)");

    if (!c.settings.writes) c.skip(SUBS, "needs --allow-writes (the subscription actions change the subscription; the suite restores it)");
    else if (!s.origin) c.skip(SUBS, "needs --origin (an Origin the server allows for the session)");
    else await actions(c, (rule) => as(rule, s.origin), seen);

    c.skip(["AUTH-3"], "that the account ceiling does not apply to the session is not observable without exhausting a window");
    c.expect(policies.size <= 1, "AUTH-3", `the session's answers name ${policies.size} rate windows (${[...policies].join(", ")}); a session has one window, no second counter`, who);
  },
};

function recordOf(body: any): Record<string, any> | null | undefined {
  if (body === null) return null;
  if (!body || typeof body !== "object") return undefined;
  if ("subscription" in body) return body.subscription ?? null;
  return body;
}

/** Cancel and resume in the order that puts the subscription back as it was; the card change. */
async function actions(c: CheckContext, as: (rule: string) => Session, seen: (ex: Exchange) => Exchange): Promise<void> {
  const read = async (rule: string) => recordOf(seen(await c.get("/v1/billing/subscription", rule, as(rule))).json);
  const post = async (path: string, body: unknown, rule: string) => seen(await c.request({ ...as(rule), method: "POST", path, ...(body === undefined ? {} : { json: body }) }));
  const start = await read("SUBS-2");
  if (!start) {
    c.skip(SUBS, "the session's account has no subscription: the actions' replies cannot be seen");
    return;
  }
  if (!("cancelled_at" in start)) {
    c.skip(SUBS, "the subscription record does not say whether it is cancelled (cancelled_at): the suite would not know how to put it back");
    return;
  }
  const wasCancelled = start.cancelled_at !== null;

  const resume = async () => {
    const ex = await post("/v1/subscription/resume", undefined, "SUBS-1");
    if (c.unavailable(ex, SUBS)) return undefined;
    c.expect(succeeded(ex) && "next_pay_date" in (ex.json ?? {}), "SUBS-1", `resume answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}, not next_pay_date`, ex);
    return succeeded(ex);
  };
  const cancel = async () => {
    const ex = await post("/v1/subscription/cancel", { reason_text: "Conformance check: the suite resumes it at once." }, "SUBS-2");
    c.expect(succeeded(ex) && "plan_ends_at" in (ex.json ?? {}) && typeof ex.json?.superseded === "boolean", "SUBS-2", `cancel answered ${ex.status} ${errorCodeOf(ex.json) ?? ""}, not plan_ends_at and superseded`, ex);
    return succeeded(ex);
  };

  if (wasCancelled) {
    if (!(await resume())) {
      c.skip(["SUBS-3", "SUBS-4"], "the cancelled subscription could not be resumed: the card change was not tried on it");
      return;
    }
  }
  await cardChange(c, post);
  if (!wasCancelled) {
    if (await cancel()) {
      if (await resume()) {
        const again = await post("/v1/subscription/resume", undefined, "SUBS-1");
        c.refusal(again, "renewal_already_on", "SUBS-1", "resuming a subscription that renews");
      }
    }
  } else await cancel();

  const end = await read("SUBS-2");
  const restored = end !== undefined && end !== null && (end.cancelled_at !== null) === wasCancelled;
  if (!restored) c.note("SUBS-2", `the subscription was not put back as found (it was ${wasCancelled ? "cancelled" : "renewing"}; cancelled_at is now ${JSON.stringify(end?.cancelled_at)})`);
}

async function cardChange(c: CheckContext, post: (path: string, body: unknown, rule: string) => Promise<Exchange>): Promise<void> {
  const start = await post("/v1/subscription/card-change", undefined, "SUBS-3");
  if (!c.expect(succeeded(start) && typeof start.json?.payment_id === "string", "SUBS-3", `card-change answered ${start.status} ${errorCodeOf(start.json) ?? ""}, not a payment_id`, start)) {
    c.skip(["SUBS-4"], "no card change was started");
    return;
  }
  // Without the payment widget the check may not be authorized; a server that completes it answers the reply.
  const done = await post("/v1/subscription/card-change/complete", { payment_id: start.json.payment_id }, "SUBS-4");
  if (done.status === 409 && errorCodeOf(done.json) === "card_check_not_authorized") {
    c.skip(["SUBS-4"], "the card check was not authorized (completing it needs the payment widget)");
    return;
  }
  const body = done.json ?? {};
  c.expect(succeeded(done) && ["card", "next_pay_date", "resumed", "charge"].every((k) => k in body) && typeof body.resumed === "boolean", "SUBS-4", `card-change/complete answered ${done.status} ${errorCodeOf(done.json) ?? ""}, not card, next_pay_date, resumed and charge`, done);
}
