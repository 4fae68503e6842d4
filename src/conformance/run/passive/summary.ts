// What a report of passive judging says besides the rules: where the traffic came from and
// what of it was judged, left to the trace, or not proved.
import type { PassiveTally } from "../../judge/passive.ts";
import type { HarRead } from "../../target/passive/har.ts";
import type { ProxyCounts } from "../../target/passive/proxy.ts";

export interface PassiveSummary {
  /** The traffic judged: a client's through the proxy, or a recorded HAR file. */
  source: "proxy" | "har";
  /** The proxy's address (`proxy`). */
  listen?: string;
  /** The server behind the proxy, or the API's address in the HAR file (when given). */
  upstream?: string;
  /** The HAR file (`har`). */
  file?: string;
  /** What the judge saw. */
  judged: PassiveTally;
  /** What the proxy counted besides. */
  proxy?: ProxyCounts;
  /** What the HAR file held. */
  har?: HarRead;
  /** The command run with the proxy up (`-- <command>`), and how it ended. */
  command?: { line: string; exitCode: number | null; signal?: string };
}
