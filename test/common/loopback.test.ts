// Which hosts are this machine's own: one test for the simulator and the conformance suite.
import { describe, expect, it } from "vitest";
import { isLoopbackHost, LOOPBACK_REDIRECT_HOSTS } from "../../src/common/loopback.ts";

describe("isLoopbackHost", () => {
  it("takes localhost and its subdomains, 127.0.0.0/8 (also IPv4-mapped) and ::1, with or without brackets, in any case", () => {
    const loopback = ["localhost", "LocalHost", "app.localhost", "localhost.", "127.0.0.1", "127.255.0.9", "::1", "[::1]", "::ffff:127.0.0.1", "[::FFFF:127.0.0.2]"];
    expect(loopback.filter((h) => !isLoopbackHost(h))).toEqual([]);
  });

  it("refuses every other host, however close it looks", () => {
    const others = ["example.com", "localhost.example.com", "128.0.0.1", "127.0.0.256", "127.0.0", "0.0.0.0", "::", "::2", "::ffff:10.0.0.1", "localhosts"];
    expect(others.filter((h) => isLoopbackHost(h))).toEqual([]);
  });

  it("OAUTH-7: the seed's loopback hosts for an http: redirect address are localhost, 127.0.0.1 and [::1] only", () => {
    expect([...LOOPBACK_REDIRECT_HOSTS].sort()).toEqual(["127.0.0.1", "[::1]", "localhost"]);
    for (const h of LOOPBACK_REDIRECT_HOSTS) expect(isLoopbackHost(h), h).toBe(true);
  });
});
