// The inspector's page: plain HTML the script (app.ts, served from script.ts) fills,
// served from the simulator with everything it loads (nothing from another machine). Its
// policy lets it run only its own script and style, talk only to its own origin, and never
// be framed.

export const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The page for a hub reached at `basePath` ("" for the default hub, `/sandboxes/sbx_…` for a
 * sandbox reached by its base path): its script, style and links stay on that hub.
 */
export function inspectorPage(basePath: string): string {
  return basePath === "" ? INSPECTOR_PAGE : INSPECTOR_PAGE.replaceAll('"/_sim/', `"${basePath}/_sim/`);
}

export const INSPECTOR_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Generation Hub simulator: inspector</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/_sim/ui/app.css">
<script src="/_sim/ui/app.js" defer></script>
</head>
<body>
<header>
  <h1>Generation Hub simulator <span>inspector</span></h1>
  <label class="hub" title="The default hub, or a sandbox (a hub of its own per test): its inspector">Hub <select id="hub-pick" aria-label="Hub"><option value="">default hub</option></select> <small id="hub-count"></small></label>
  <span id="live" class="live" title="The push channel /_sim/ui/events">connecting</span>
  <span id="clock" class="clock" title="The simulated clock">clock</span>
  <span class="bar">
    <button type="button" id="pause">Pause clock</button>
    <label>by <input id="advance-seconds" type="number" min="0" step="1" value="60" aria-label="Seconds to advance"> s</label>
    <button type="button" id="advance">Advance clock</button>
    <button type="button" id="reset" class="danger" title="POST /_sim/reset: back to the scenario">Reset</button>
  </span>
</header>
<p id="problem" class="problem" role="alert" hidden></p>
<main>
  <section id="requests" aria-label="Requests">
    <h2>Requests <small id="requests-count"></small></h2>
    <div class="filters">
      <label>Status <select id="filter-status"><option value="">all</option><option>2xx</option><option>3xx</option><option>4xx</option><option>5xx</option><option value="0">no answer</option></select></label>
      <label>Route <input id="filter-route" list="routes" placeholder="operationId or /path" size="18"></label>
      <label>Credential <input id="filter-credential" list="credentials" placeholder="key id, account" size="14"></label>
      <label>Text <input id="filter-text" type="search" placeholder="in rows and bodies" size="16"></label>
      <datalist id="routes"></datalist><datalist id="credentials"></datalist>
    </div>
    <table class="rows">
      <thead><tr><th>Time</th><th>Method</th><th>Path</th><th>Status</th><th>Code</th><th>Request id</th><th>Credential</th><th>ms</th></tr></thead>
      <tbody id="rows"></tbody>
    </table>
    <p id="empty" class="muted">No request yet: send one to this simulator and it shows here.</p>
  </section>
  <aside id="side">
    <section id="detail" aria-label="Exchange" hidden>
      <h2>Exchange <button type="button" id="detail-close" class="small">Close</button></h2>
      <div id="detail-body"></div>
    </section>
    <section id="state" aria-label="State">
      <h2>State <small id="scenario"></small></h2>
      <div id="generations"></div>
    </section>
    <section id="controls" aria-label="Controls">
      <h2>Controls</h2>
      <h3>Scenario</h3>
      <div class="bar">
        <select id="scenario-name" aria-label="Shipped scenario"></select>
        <button type="button" id="scenario-load">Load</button>
        <label class="file">Load a file <input type="file" id="scenario-file" accept=".json,application/json"></label>
        <a id="scenario-export" href="/_sim/scenario" download="scenario.json">Export</a>
      </div>
      <h3>Faults</h3>
      <div class="bar">
        <select id="fault-kind" aria-label="Fault kind">
          <option>service_unavailable</option><option>internal_error</option><option>rate_limited</option><option>latency</option>
          <option>drop</option><option>truncate</option><option>stream_cut</option><option>stream_silent</option>
        </select>
        <input id="fault-route" placeholder="route (operationId or /path), empty: all" size="22" aria-label="Fault route" list="routes">
        <input id="fault-count" type="number" min="1" placeholder="count" size="5" aria-label="Fault count">
        <input id="fault-latency" type="number" min="0" placeholder="latency ms" size="7" aria-label="Latency in ms">
        <button type="button" id="fault-add">Add fault</button>
        <button type="button" id="faults-clear">Clear faults</button>
      </div>
      <div id="faults"></div>
    </section>
    <section id="credentials-state" aria-label="Accounts and keys">
      <details open><summary><h2>Accounts <small id="accounts-count"></small></h2></summary><div id="accounts"></div></details>
      <details open><summary><h2>Keys <small id="keys-count"></small></h2></summary><div id="keys"></div></details>
    </section>
  </aside>
</main>
</body>
</html>
`;
