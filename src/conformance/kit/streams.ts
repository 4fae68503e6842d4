// What a client reads of the event stream: a generation's status changes on it, the
// statuses no change follows, and what it sees when the stream's credential is taken away.
import type { CheckContext } from "../facts/check.ts";
import { errorCodeOf } from "../target/exchange.ts";
import type { EventStream, Frame } from "../target/stream.ts";

/** The statuses of a generation no change follows (a deletion aside). */
export const FINAL: ReadonlySet<string> = new Set(["DONE", "FAILED"]);

/** The status-change frames of generation `id` the stream carried, in order. */
export function framesOf(s: EventStream, id: string): Frame[] {
  return s.frames.filter((f) => f.event === "generation.status_changed" && f.data?.id === id);
}

/**
 * The stream opened with a credential that was then revoked (an access token, or an API
 * key: `what`) ends with `terminated`, and a reconnect gets the same refusal.
 */
export async function terminated(c: CheckContext, opened: Awaited<ReturnType<CheckContext["target"]["openStream"]>>, t: { access: string; label: string }, what = "an access token"): Promise<void> {
  const s = opened.stream;
  if (!s) {
    c.skip(["EVT-7"], `a stream with ${what} did not open (${opened.exchange.status} ${errorCodeOf(opened.exchange.json) ?? ""})`);
    return;
  }
  const got = await s.until((x) => x.frames.some((f) => f.event === "terminated"), 5_000);
  const frame = s.frames.find((f) => f.event === "terminated");
  await s.until((x) => x.ended, 1_000);
  s.close();
  if (!c.expect(got, "EVT-7", `a stream opened with ${what} that was then revoked got no terminated frame within 5 s`, opened.exchange)) return;
  c.expect(s.ended, "EVT-7", "the stream did not end after its terminated frame", opened.exchange);
  const again = await c.target.openStream({ key: t.access, label: t.label, rule: "EVT-7" }, {});
  again.stream?.close();
  const code = frame?.data?.error?.code;
  c.expect(!again.stream && errorCodeOf(again.exchange.json) === code, "EVT-7", `the terminated frame carries ${JSON.stringify(code)} but a reconnect answered ${again.exchange.status}${errorCodeOf(again.exchange.json) ? ` ${errorCodeOf(again.exchange.json)}` : ""}; a reconnect gets the same refusal`, again.exchange);
}
