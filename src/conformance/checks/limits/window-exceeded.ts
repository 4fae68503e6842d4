// Exceeding a window (LIM-4): a key the run makes (the server's control) spends its own
// `default` window to the end, never the caller's keys. The request past it answers 429
// `rate_limited` (reason `request_rate`) with `Retry-After` in whole seconds and the pair
// describing the refusing window (`default`, r=0), no request past the quota is served
// within the window, and once `Retry-After` seconds have passed (the clock moved when the suite owns it, else
// waited within --max-wait) the key is served again. Its requests count in the account's
// window as well: it runs after time passes, when the rest of the run is done.
import { errorCodeOf, type Exchange } from "../../target/exchange.ts";
import { spentBetween } from "../../kit/window.ts";
import { windowOf } from "../../target/rate-window.ts";
import { type Check, type CheckContext } from "../../facts/check.ts";

const RULE = "LIM-4";
/** Most requests the suite spends to exceed a window (a larger quota is left unexceeded, with the reason). */
export const MOST_SPENT = 2_000;
const LABEL = "key spent in the run";

export const windowExceeded: Check = {
  name: "a key's window spent to its end, then open again after Retry-After (with control of the server)",
  rules: [RULE],
  when: "after time passes",
  async run(c) {
    const control = c.settings.options.control;
    if (!control?.newKey) return c.skip([RULE], "no window exceeded: it would spend the caller's own quota, and the run was given no control of the server that makes a key of its own (the library's `control`; the CLI's own simulator has one)");
    let key: string;
    try {
      key = await control.newKey();
    } catch (error) {
      return c.skip([RULE], `no key of the run's own to spend: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      await exceed(c, key);
    } finally {
      await control.revokeKey?.(key).catch(() => undefined);
    }
  },
};

async function exceed(c: CheckContext, key: string): Promise<void> {
  const send = () => c.get("/v1/whoami", RULE, { key, label: LABEL, noRetry: true, spendAll: true });
  const first = await send();
  const start = windowOf(first.headers);
  if (first.status !== 200 || !start) return c.skip([RULE], `the key made for the run answered ${first.status}${start ? "" : " without a RateLimit window"}`);
  if (start.policy !== "default") return c.skip([RULE], `the ${start.policy} window is the binding one for the key made for the run: spending it would refuse the caller's own requests`);
  if (start.remaining > MOST_SPENT) return c.skip([RULE], `the key's window has ${start.remaining} requests left, more than the ${MOST_SPENT} the suite spends to exceed one`);
  if (!c.timeAllows(start.reset + 1, [RULE], "a window opening again")) return;
  let before: Exchange = first;
  let refused: Exchange | undefined;
  for (let sent = 1; sent <= MOST_SPENT + 1 && !refused; sent++) {
    const ex = await send();
    if (ex.status === 429) refused = ex;
    else if (ex.status !== 200) return c.fail(RULE, `a request of the key made for the run answered ${ex.status} ${errorCodeOf(ex.json) ?? ""} while its window was spent`, ex);
    else if (servedPastQuota(before, ex)) return c.fail(RULE, `the window said r=0, and the next request within it was served (${ex.headers.get("ratelimit")}): a request past the quota is refused`, ex);
    if (!refused) before = ex;
  }
  if (!refused) return c.fail(RULE, `${MOST_SPENT + 1} requests of one key (its window said ${start.remaining} left) and none was refused`, before);
  const code = errorCodeOf(refused.json);
  const details: unknown[] = Array.isArray(refused.json?.error?.details) ? refused.json.error.details : [];
  c.expect(code === "rate_limited" && details.some((d) => (d as { reason?: unknown } | null)?.reason === "request_rate"), RULE, `the request past the window's quota answered 429 ${code ?? "without an error code"}${code === "rate_limited" ? " without the reason request_rate in details" : ""}; rate_limited, reason request_rate`, refused);
  describesItself(c, before, refused);
  const said = refused.headers.get("retry-after");
  if (!c.expect(said !== null && /^\d+$/.test(said.trim()), RULE, `the request past the window's quota answered 429 with Retry-After ${said === null ? "missing" : JSON.stringify(said)}; whole seconds`, refused)) return;
  const seconds = Number(said!.trim());
  if (!(await c.passTime(seconds, [RULE], "the window's Retry-After"))) return;
  const again = await send();
  c.expect(again.status === 200, RULE, `${seconds} s after a 429 whose Retry-After said ${seconds}, the key was ${again.status === 429 ? "still refused" : `answered ${again.status}`}; Retry-After says when it is served again`, again);
}

/**
 * The refusal's pair describes the refusing window: `default` with r=0. Held when the
 * served answer before it said r=0 of the default window (a window that did not count
 * down to 0 is LIM-3's finding, and what the refusal should say then is not known).
 */
function describesItself(c: CheckContext, before: Exchange, refused: Exchange): void {
  const last = windowOf(before.headers);
  if (last?.policy !== "default" || last.remaining !== 0) return c.note(RULE, `the refusal's pair not held to the refusing window: the answer before it said ${last ? `"${last.policy}" r=${last.remaining}` : "no window"}, not "default" r=0`);
  const w = windowOf(refused.headers);
  c.expect(w?.policy === "default" && w.remaining === 0, RULE, `the request past the default window's quota answered 429 with the pair ${w ? `"${w.policy}" r=${w.remaining}` : "of no one window"}; a refusing window describes itself: "default" with r=0`, refused);
}

/** The answer before said the window had no request left, and this one was served within the same window. */
function servedPastQuota(before: Exchange, ex: Exchange): boolean {
  return windowOf(before.headers)?.remaining === 0 && spentBetween(before, ex) !== undefined;
}
