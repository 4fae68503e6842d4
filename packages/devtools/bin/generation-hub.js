#!/usr/bin/env node
// generation-hub: the Generation Hub dev tools from the command line.
//   generation-hub mock [options]          the hub simulator (demo keys printed, docs at /docs/)
//   generation-hub conformance [options]   the conformance suite against a server
const [command, ...rest] = process.argv.slice(2);

const HELP = `Usage: generation-hub <command> [options]

Commands:
  mock          the hub simulator on http://127.0.0.1:4010 (generation-hub mock --help)
  conformance   the conformance suite against a server (generation-hub conformance --help)`;

switch (command) {
  case "mock": {
    const { runMock } = await import("../dist/src/simulator/cli.js");
    await runMock(rest, { program: "generation-hub mock" });
    break;
  }
  case "conformance": {
    const { runConformanceCli } = await import("../dist/src/conformance/cli.js");
    await runConformanceCli(rest, { program: "generation-hub conformance" });
    break;
  }
  case undefined:
  case "help":
  case "--help":
  case "-h":
    console.log(HELP);
    break;
  default:
    console.error(`Unknown command ${JSON.stringify(command)}.\n\n${HELP}`);
    process.exit(2);
}
