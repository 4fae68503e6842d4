#!/usr/bin/env node
// generation-hub: the Generation Hub dev tools from the command line.
//   generation-hub mock [options]          the hub simulator (demo keys printed, docs at /docs/)
//   generation-hub conformance [options]   the conformance suite against a server
// Without a command it prints the usage and exits 2 (a script that forgot the command fails);
// `--help` prints it and exits 0.
const [command, ...rest] = process.argv.slice(2);
const COMMANDS = ["mock", "conformance"];

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
  case "help":
  case "--help":
  case "-h":
    console.log(HELP);
    break;
  case undefined:
    console.error(HELP);
    process.exit(2);
    break;
  default: {
    const { closest } = await import("../dist/src/common/did-you-mean.js");
    const guess = closest(command, COMMANDS);
    console.error(`generation-hub: unknown command ${JSON.stringify(command)}${guess ? `; did you mean ${guess}?` : ""} (the commands: ${COMMANDS.join(", ")}; generation-hub --help)`);
    process.exit(2);
  }
}
