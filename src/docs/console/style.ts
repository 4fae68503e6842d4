// The try-it panel's stylesheet (assets/console.css beside the reference page). Plain,
// high-contrast, Redoc's own font; every state also said in words, not by colour alone.
export const CONSOLE_CSS = `
.hub-console { margin: 0 0 1.5rem; padding: .6rem 1rem; border: 1px solid #b6c2cf; border-radius: 8px; background: #f7f9fb; color: #1f2328; font-size: 14px; line-height: 1.5; }
.hub-console [hidden] { display: none !important; }
.hub-console-head { display: flex; align-items: center; gap: .8rem; flex-wrap: wrap; }
.hub-console-hint { color: #4d5964; }
.hub-console button { font: inherit; padding: .3rem .8rem; border: 1px solid #8c99a6; border-radius: 6px; background: #fff; color: #1f2328; cursor: pointer; }
.hub-console button:hover { background: #eef2f6; }
.hub-console button:disabled { opacity: .6; cursor: progress; }
.hub-console button:focus-visible, .hub-console input:focus-visible, .hub-console select:focus-visible, .hub-console textarea:focus-visible, .hub-console pre:focus-visible, .hub-console summary:focus-visible, .hub-console a:focus-visible { outline: 3px solid #0550ae; outline-offset: 1px; }
.hub-console .hub-console-toggle, .hub-console .hub-console-send { background: #0550ae; border-color: #0550ae; color: #fff; font-weight: 600; }
.hub-console .hub-console-toggle:hover, .hub-console .hub-console-send:hover { background: #033d8b; }
.hub-console-body { margin-top: .8rem; }
.hub-console-grid { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1.2rem; }
@media (max-width: 75rem) { .hub-console-grid { grid-template-columns: minmax(0, 1fr); } }
.hub-console-row { display: flex; flex-direction: column; gap: .2rem; margin: .5rem 0; }
.hub-console-inline { display: flex; gap: .4rem; }
.hub-console-inline input { flex: 1; }
.hub-console label { font-weight: 600; }
.hub-console input, .hub-console select, .hub-console textarea { font: inherit; padding: .3rem .4rem; border: 1px solid #8c99a6; border-radius: 4px; background: #fff; color: #1f2328; max-width: 100%; }
.hub-console fieldset { border: 1px solid #d1d9e0; border-radius: 6px; margin: .5rem 0; padding: .2rem .8rem; }
.hub-console legend { font-weight: 600; padding: 0 .3rem; }
.hub-console-code { font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.hub-console-code { background: #fff; border: 1px solid #d1d9e0; border-radius: 6px; padding: .5rem .7rem; margin: .3rem 0; max-height: 24rem; overflow: auto; }
textarea.hub-console-code { width: 100%; resize: vertical; }
.hub-console-actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .6rem 0; }
.hub-console-copied, .hub-console-note { color: #4d5964; }
.hub-console-ok { color: #116329; }
.hub-console-bad { color: #a40e26; font-weight: 600; }
.hub-console-details { margin: .2rem 0; padding-left: 1.2rem; }
.hub-console-status { font-size: 1.15rem; font-weight: 700; margin: 0 0 .4rem; }
.hub-console-status-2xx, .hub-console-status-3xx { color: #116329; }
.hub-console-status-4xx, .hub-console-status-5xx { color: #a40e26; }
.hub-console h5 { margin: .8rem 0 .2rem; font-size: .95rem; }
.hub-console-table { border-collapse: collapse; font-size: 12.5px; width: 100%; }
.hub-console-table th, .hub-console-table td { border: 1px solid #d1d9e0; padding: .15rem .4rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
.hub-console-table th { background: #eef2f6; font-weight: 600; white-space: nowrap; }
.hub-console-verdict { margin-top: .8rem; padding: .4rem .8rem; border-left: 4px solid #8c99a6; background: #fff; }
.hub-console-frames { padding-left: 1.4rem; max-height: 24rem; overflow: auto; }
.hub-console-answer img { max-width: 12rem; display: block; margin-top: .4rem; }
.hub-console-snippets summary { cursor: pointer; }
`;
