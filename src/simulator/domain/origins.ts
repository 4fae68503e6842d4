// Which origins and host names are this machine's own (loopback). A tool on 127.0.0.1 is
// still reachable from every page its user visits, so the simulator tells loopback
// origins apart from the rest: the session cookie's default Origin allowlist, the
// control interface's guard, the HTTP adapter's Host allow-list.

/**
 * A loopback host name or address: `localhost` and its subdomains (browsers resolve
 * `*.localhost` to loopback themselves, RFC 6761), 127.0.0.0/8 and ::1 (with or without
 * brackets). Lower-case, without a port.
 */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (h === "::1" || h === "[::1]") return true;
  return /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(h);
}

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
  return url.origin === origin.toLowerCase() && isLoopbackHostname(url.hostname);
}

const CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** A method that changes something: what the Origin checks (the session cookie's, the guards') look at. */
export function changes(method: string): boolean {
  return CHANGING.has(method);
}
