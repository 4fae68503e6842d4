// Builds the try-it panel into the docs site: assets/console.js (the panel's code, the
// model of every operation, the body validators compiled ahead of time and the schemas
// they check against, bundled by esbuild into one script with nothing fetched at run time)
// and assets/console.css. The reference page loads both (template.hbs).
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { contract, type JsonObject } from "../../contract/document.ts";
import { bodySchemas, consoleModel } from "./model.ts";
import { CONSOLE_CSS } from "./style.ts";
import { standaloneValidators } from "./validators.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");

/** The panel's files, relative to the site root. */
export const CONSOLE_SCRIPT = "assets/console.js";
export const CONSOLE_STYLE = "assets/console.css";

/**
 * Bundles `entry` (TypeScript, resolved from this folder) for the browser, with two
 * modules of its own to import: `console:model` (the panel's model, JSON) and
 * `console:validators` (the body validators compiled ahead of time). The contract it
 * carries is only the schemas the validators report against, not the whole document.
 */
export async function bundleConsole(entry: string, format: "iife" | "esm" = "iife"): Promise<string> {
  const model = consoleModel();
  const validators = standaloneValidators(bodySchemas(model), join(root, "src/contract/document.ts"));
  const schemas = JSON.stringify({ components: { schemas: (contract.components as JsonObject).schemas } });
  const virtual: Record<string, { contents: string; loader: "js" | "json" }> = {
    "console:model": { contents: JSON.stringify(model), loader: "json" },
    "console:validators": { contents: validators, loader: "js" },
    schemas: { contents: schemas, loader: "json" },
  };
  const result = await build({
    stdin: { contents: entry, resolveDir: here, loader: "ts", sourcefile: "console-entry.ts" },
    bundle: true,
    format,
    platform: "browser",
    target: ["es2022"],
    minify: true,
    // The bundled libraries' licence notices stay with their code.
    legalComments: "eof",
    write: false,
    logLevel: "silent",
    plugins: [
      {
        name: "console-sources",
        setup(b) {
          b.onResolve({ filter: /^console:/ }, (args) => ({ path: args.path, namespace: "console" }));
          b.onResolve({ filter: /generated\/openapi\.json$/ }, () => ({ path: "schemas", namespace: "console" }));
          b.onLoad({ filter: /.*/, namespace: "console" }, (args) => ({ ...virtual[args.path]!, resolveDir: root }));
        },
      },
    ],
  });
  const code = result.outputFiles[0]!.text;
  if (/\bnew Function\b|\beval\(/.test(code)) throw new Error("the try-it panel would need eval, which the docs' CSP refuses");
  return code;
}

/** Writes the panel's script and stylesheet into a site folder; answers their sizes in bytes. */
export async function buildConsole(outDir: string): Promise<{ script: number; style: number }> {
  const script = await bundleConsole(
    [
      `import { boot } from "./browser/main.ts";`,
      `import model from "console:model";`,
      `import { validators } from "console:validators";`,
      `boot(model, validators);`,
    ].join("\n"),
  );
  writeFileSync(join(outDir, CONSOLE_SCRIPT), script);
  writeFileSync(join(outDir, CONSOLE_STYLE), CONSOLE_CSS);
  return { script: Buffer.byteLength(script), style: Buffer.byteLength(CONSOLE_CSS) };
}
