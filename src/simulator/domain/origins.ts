// Which origins are this machine's own (loopback; the host test is common/loopback.ts). A
// tool on 127.0.0.1 is still reachable from every page its user visits, so the simulator
// tells loopback origins apart from the rest: the session cookie's default Origin
// allowlist, the control interface's guard.
import { isLoopbackHost } from "../../common/loopback.ts";

/** The origin of an absolute URL (`scheme://host[:port]`), or undefined when it does not parse. */
export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** An `http(s)` origin on a loopback host, any port (`http://localhost:5173`, `http://127.0.0.1:4010`). */
export function isLoopbackOrigin(origin: string): boolean {
  if (!/^https?:\/\/[^/?#]+$/i.test(origin)) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.origin === origin.toLowerCase() && isLoopbackHost(url.hostname);
}

const CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** A method that changes something: what the Origin checks (the session cookie's, the guards') look at. */
export function changes(method: string): boolean {
  return CHANGING.has(method);
}
