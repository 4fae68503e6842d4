// A test that asks whether some files compile reads their own problems, as a user's
// compiler reports them for those files: what they import (the client, the simulator, the
// suite) is checked only as far as they use it. test/typecheck.test.ts checks all of this
// repository's sources whole, once per run, as strictly; checking them again in every
// program that imports them cost seconds of CPU per test.
import ts from "typescript";

/** The problems of `files` (each one of the program's) themselves, and the program's own (its options, its global types). */
export function ownDiagnostics(program: ts.Program, files: readonly string[]): ts.Diagnostic[] {
  const own = files.flatMap((name) => {
    const file = program.getSourceFile(name);
    if (!file) throw new Error(`${name} is not a file of the program`);
    return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
  });
  return [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...own];
}
