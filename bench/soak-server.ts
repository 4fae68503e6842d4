// The simulator as `npm run bench:soak` runs it: `npm start`'s command line, without
// building the reference docs, that answers the benchmark's question "how much memory?"
// over the IPC channel: RSS and heap used right after a full garbage collection (the low
// points, which grow only with what the simulator keeps). Start it with --expose-gc.
import { runMock } from "../src/simulator/cli.ts";

const gc = (globalThis as { gc?: () => void }).gc;

process.on("message", (message) => {
  if (message !== "memory" || !process.send) return;
  gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.send({ rss, heapUsed, collected: gc !== undefined });
});

await runMock(process.argv.slice(2), { program: "bench/soak-server.ts" });
