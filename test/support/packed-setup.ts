// vitest's global set-up: at the end of a run, the run's packed tarballs go (test/support/packed.ts).
import { rmSync } from "node:fs";
import { packedFolder } from "./packed.ts";

export default function setup(): () => void {
  return () => rmSync(packedFolder(), { recursive: true, force: true });
}
