// vitest's global set-up: at the end of a run, the run's packed tarballs (test/support/packed.ts)
// and its bundled programs (test/support/bundled.ts) go.
import { rmSync } from "node:fs";
import { bundlesFolder } from "./bundled.ts";
import { packedFolder } from "./packed.ts";

export default function setup(): () => void {
  return () => {
    rmSync(packedFolder(), { recursive: true, force: true });
    rmSync(bundlesFolder(), { recursive: true, force: true });
  };
}
