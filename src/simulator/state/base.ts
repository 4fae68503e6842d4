// What the domain needs of a hub: its options, clock, ids and state, the result files,
// and two hooks. The hub (hub.ts) is one; domain code takes this, never the hub, so the
// layers import only downward.
import type { SimClock } from "./clock.ts";
import type { HubState } from "./hub-state.ts";
import type { AssetSource, HubOptions, Retention, Timing } from "./options.ts";
import type { IdMaker } from "./util.ts";

export interface HubBase {
  readonly options: HubOptions;
  readonly clock: SimClock;
  /** Replaced on reset, as is `state`: read them through the base each time. */
  readonly ids: IdMaker;
  readonly state: HubState;
  readonly timing: Timing;
  /** What is kept of each account's records (the options' over DEFAULT_RETENTION). */
  readonly retention: Retention;
  readonly assets: AssetSource;
  /** Base address put in links; undefined: the address the caller used. */
  readonly publicUrl: string | undefined;
  /** Something that can withdraw access changed: every open event stream is checked again. */
  recheckStreams(): void;
  /** At simulated time `at` (a key or token expires), open streams are checked again. */
  watchExpiry(at: number | null): void;
}
