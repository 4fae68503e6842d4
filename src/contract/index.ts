// The contract at run time: the bundled document, its tables and its validators.
export * from "./document.ts";
export * from "./tables.ts";
export * from "./validator.ts";
export * from "./rules.ts";
