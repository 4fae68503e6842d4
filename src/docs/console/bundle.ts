// Builds the try-it panel into the docs site, bundled by esbuild with nothing fetched from
// elsewhere at run time: assets/console.js, which the reference page loads (template.hbs):
// a "Try it" button on every operation; assets/console-app.js, which the first click
// loads: the panel's code, the model of every operation, the body validators compiled
// ahead of time and the schemas they check against; and assets/console.css.
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
export const CONSOLE_APP = "assets/console-app.js";
export const CONSOLE_STYLE = "assets/console.css";

type Sources = Record<string, { contents: string; loader: "js" | "json" }>;
let made: Sources | undefined;

/** The generated modules the bundles import, made once (they follow from the contract alone). */
function sources(): Sources {
  if (made) return made;
  const model = consoleModel();
  const operations = model.operations.map(({ id, operationId, method, path, summary }) => ({ id, operationId, method, path, summary }));
  made = {
    "console:model": { contents: JSON.stringify(model), loader: "json" },
    "console:operations": { contents: JSON.stringify(operations), loader: "json" },
    "console:validators": { contents: standaloneValidators(bodySchemas(model), join(root, "src/contract/document.ts")), loader: "js" },
    schemas: { contents: JSON.stringify({ components: { schemas: (contract.components as JsonObject).schemas } }), loader: "json" },
  };
  return made;
}

/**
 * Bundles `entry` (TypeScript, resolved from this folder) for the browser, with modules of
 * its own to import: `console:model` (the panel's model, JSON), `console:operations` (what
 * the buttons need of it) and `console:validators` (the body validators compiled ahead of
 * time). The contract it carries is only the schemas the validators report against.
 */
export async function bundleConsole(entry: string, format: "iife" | "esm" = "iife"): Promise<string> {
  const virtual = sources();
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

/** Writes the panel's scripts and stylesheet into a site folder; answers their sizes in bytes. */
export async function buildConsole(outDir: string): Promise<{ script: number; app: number; style: number }> {
  const [script, app] = await Promise.all([
    bundleConsole(
      [
        `import { boot } from "./browser/loader.ts";`,
        `import operations from "console:operations";`,
        // The panel's script sits beside this one, wherever the site is mounted.
        `boot(operations, new URL(${JSON.stringify(CONSOLE_APP.split("/").pop())}, document.currentScript.src).href);`,
      ].join("\n"),
    ),
    bundleConsole(
      [
        `import { consoleApp } from "./browser/app.ts";`,
        `import { APP_GLOBAL } from "./browser/loader.ts";`,
        `import model from "console:model";`,
        `import { validators } from "console:validators";`,
        `window[APP_GLOBAL] = consoleApp(model, validators);`,
      ].join("\n"),
    ),
  ]);
  writeFileSync(join(outDir, CONSOLE_SCRIPT), script);
  writeFileSync(join(outDir, CONSOLE_APP), app);
  writeFileSync(join(outDir, CONSOLE_STYLE), CONSOLE_CSS);
  return { script: Buffer.byteLength(script), app: Buffer.byteLength(app), style: Buffer.byteLength(CONSOLE_CSS) };
}
