// createHubHandlers: the hub simulator as Mock Service Worker request handlers, for unit
// tests (msw/node), Storybook and browser runs (msw/browser) without a server. The same
// Hub answers as behind `npm start`: contract validation, the envelope, the state
// machine, rate limits, idempotency and the event stream.
import { http, type HttpHandler } from "msw";
import { DEFAULT_BODY_LIMIT } from "../http/body-limits.ts";
import { Hub, type HubOptions } from "../hub.ts";
import { embeddedAssets } from "./assets.ts";
import { HubControl } from "./control.ts";
import { answerWithHub } from "./exchange.ts";

/** The origin the handlers answer by default: a name reserved for examples (RFC 2606), never a real host. */
export const DEFAULT_BASE_URL = "https://hub.example";

export interface HubHandlersOptions extends HubOptions {
  /**
   * The origin the handlers answer (`scheme://host[:port]`, no path), default
   * `https://hub.example`. Every request to it goes to the hub, whatever its path: `/v1`,
   * `/oauth`, `/.well-known`, `/storage`, `/site`, `/_sim`; unknown paths answer 404 in the
   * envelope. Give the typed client the same `baseUrl`.
   */
  baseUrl?: string;
  /** Largest request body, default 1 MiB (an upload's PUT: up to its 40 MiB ceiling); above it 413 `request_too_large`. */
  bodyLimit?: number;
  /**
   * Simulated seconds per real second. Default 0 here (frozen: a test moves time with
   * `control.advance(seconds)`), where the server's default is 1.
   */
  clockSpeed?: number;
}

export interface HubHandlers {
  /** Request handlers for `setupServer(...handlers)` (msw/node) or `setupWorker(...handlers)` (msw/browser). */
  handlers: HttpHandler[];
  /** The hub behind them (`hub.reset()`, `hub.clock`, `hub.state`, `hub.shutdown()`). */
  hub: Hub;
  /** The abilities of `/_sim/` as typed async methods. */
  control: HubControl;
  /** The origin the handlers answer. */
  baseUrl: string;
}

/**
 * Makes a hub and the Mock Service Worker handlers that answer every request to
 * `options.baseUrl` with it. The clock is frozen unless `clockSpeed` says otherwise; the
 * demo accounts and keys of the simulator guide are there (`ghk_demo_full` to start with);
 * result files are the simulator's own, carried in the code (`assets` replaces them).
 *
 * ```ts
 * const { handlers, control } = createHubHandlers();
 * const server = setupServer(...handlers);
 * server.listen();
 * ```
 */
export function createHubHandlers(options: HubHandlersOptions = {}): HubHandlers {
  const { baseUrl: given = DEFAULT_BASE_URL, bodyLimit = DEFAULT_BODY_LIMIT, ...hubOptions } = options;
  const baseUrl = baseOriginOf(given);
  const hub = new Hub({ ...hubOptions, clockSpeed: hubOptions.clockSpeed ?? 0, assets: hubOptions.assets ?? embeddedAssets() });
  // A pattern without groups: MSW decodes path parameters, and a malformed one would throw
  // before the hub could answer 404 in the envelope.
  const everyPath = new RegExp(`^${baseUrl.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}/`);
  const handlers = [http.all(everyPath, ({ request }) => answerWithHub(hub, request, bodyLimit))];
  return { handlers, hub, control: new HubControl(hub, baseUrl), baseUrl };
}

/** The origin `baseUrl` names, refused (TypeError) when it is not an http(s) origin without a path. */
function baseOriginOf(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl ${JSON.stringify(baseUrl)} is not an absolute URL (e.g. "https://hub.example")`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.pathname !== "/" || url.search || url.hash) {
    throw new TypeError(`baseUrl ${JSON.stringify(baseUrl)} must be an http(s) origin without a path (e.g. "https://hub.example"): the hub's routes start at the root`);
  }
  return url.origin;
}
