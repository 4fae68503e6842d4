// Headless Chromium on a closed network: Debian's `chromium` driven by playwright-core (the
// browser checks in test/ and the scripts that take screenshots share these).
import { existsSync } from "node:fs";

export function chromiumPath(): string | undefined {
  const candidates = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
  return candidates.find((p) => existsSync(p));
}

/** Flags for a headless Chromium on a closed network (see the toolchain notes). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];
