// Which hosts are this machine's own (loopback): one test for the simulator (its Host
// allow-list, whether /_sim/ is served, the control interface's guard, the session
// cookie's default Origins) and the conformance suite (whether a link an answer gives
// points at the target), and the seed's own short list for OAuth redirect addresses.

/**
 * A loopback host name or address: `localhost` and its subdomains (browsers resolve
 * `*.localhost` to loopback themselves, RFC 6761), 127.0.0.0/8 (also IPv4-mapped,
 * `::ffff:127.0.0.1`) and ::1; with or without brackets, in any case, without a port.
 */
export function isLoopbackHost(host: string): boolean {
  let h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h.endsWith(".")) h = h.slice(0, -1);
  if (h === "localhost" || h.endsWith(".localhost") || h === "::1") return true;
  if (h.startsWith("::ffff:")) h = h.slice("::ffff:".length);
  return /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(h);
}

/** The loopback hosts the seed allows an `http:` redirect address on, as a URL's `hostname` names them. */
export const LOOPBACK_REDIRECT_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"]);
