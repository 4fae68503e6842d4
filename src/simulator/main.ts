// `npm start` in this repository: the simulator's command line, building the reference
// docs from the contract when they are missing or stale (they are not committed).
import { runMock } from "./cli.ts";
import { ensureDocsSite } from "./docs-site.ts";

await runMock(process.argv.slice(2), { program: "npm start --", buildDocs: ensureDocsSite });
