// The simulator as `npm run bench:soak` runs it: `npm start`'s command line, without
// building the reference docs, that answers the benchmark's question "how much memory?"
// over the IPC channel: RSS and heap used right after a full garbage collection (the low
// points, which grow only with what the simulator keeps), and where the rest of RSS is: the
// heap V8 holds (used or not) and memory outside it (buffers). Start it with --expose-gc.
import { runMock } from "../src/simulator/cli.ts";

const gc = (globalThis as { gc?: () => void }).gc;

process.on("message", (message) => {
  if (message !== "memory" || !process.send) return;
  gc?.();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  process.send({ rss, heapUsed, heapTotal, external, collected: gc !== undefined });
});

await runMock(process.argv.slice(2), { program: "bench/soak-server.ts" });
