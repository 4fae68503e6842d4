// The Host allow-list of the HTTP adapter (DNS rebinding): a page of another site can
// point its own name at 127.0.0.1 and then talk to the simulator as if same-origin, so
// a request whose Host is not a name of this machine is refused on every route, as Vite
// (`server.allowedHosts`) and webpack-dev-server (`allowedHosts`) refuse it. Allowed:
// loopback names (`localhost`, `*.localhost`), any IP address (a rebinding page has a
// name, not an address), the names the simulator was told (its --host, --public-url),
// and --allowed-hosts. Mock Service Worker's handlers run inside the app itself and
// answer whatever base address it uses: this check is the server's only.
import { isIP } from "node:net";
import { isLoopbackHost } from "../../common/loopback.ts";

/** The host name of a Host header (lower-case, no port; an IPv6 address without brackets), or undefined when it is not one. */
export function hostnameOf(host: string): string | undefined {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    if (end < 0 || !/^(:\d{1,5})?$/.test(h.slice(end + 1))) return undefined;
    return h.slice(1, end);
  }
  const colon = h.indexOf(":");
  const name = colon < 0 ? h : h.slice(0, colon);
  if (colon >= 0 && !/^\d{1,5}$/.test(h.slice(colon + 1))) return undefined;
  return /^[a-z0-9.\-_]{1,253}$/.test(name) ? name.replace(/\.$/, "") : undefined;
}

/**
 * Whether a Host header names this simulator. `allowed` are host names (`sim.test`), a
 * name starting with a dot for the domain and every name under it (`.example.com`), or
 * `*` for any Host at all.
 */
export function hostAllowList(allowed: readonly string[]): (host: string) => boolean {
  const names = allowed.map((a) => a.trim().toLowerCase().replace(/\.$/, "")).filter(Boolean);
  const anyHost = names.includes("*");
  const exact = new Set(names.filter((n) => !n.startsWith(".")));
  const domains = names.filter((n) => n.startsWith("."));
  // The same few Host values arrive on every request.
  const seen = new Map<string, boolean>();
  const decide = (host: string): boolean => {
    if (anyHost) return true;
    const name = hostnameOf(host);
    if (name === undefined) return false;
    if (isIP(name) !== 0 || isLoopbackHost(name) || exact.has(name)) return true;
    return domains.some((d) => name === d.slice(1) || name.endsWith(d));
  };
  return (host) => {
    let ok = seen.get(host);
    if (ok === undefined) {
      ok = decide(host);
      if (seen.size > 1000) seen.clear();
      seen.set(host, ok);
    }
    return ok;
  };
}
