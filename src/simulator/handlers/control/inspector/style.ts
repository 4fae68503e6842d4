// The inspector page's style sheet (served at /_sim/ui/app.css).
export const INSPECTOR_STYLE = `:root{--fg:#1b1f24;--muted:#5b6470;--line:#d8dde3;--bg:#fff;--soft:#f4f6f8;--ok:#1a7f37;--warn:#9a6700;--bad:#c62828;--info:#0550ae;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
*{box-sizing:border-box}
body{margin:0}
header{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.5rem 1rem;border-bottom:1px solid var(--line);background:var(--soft);position:sticky;top:0;z-index:2}
h1{font-size:1.05rem;margin:0}h1 span{color:var(--muted);font-weight:400}
h2{font-size:1rem;margin:.75rem 0 .4rem;display:flex;align-items:center;gap:.5rem}
h3{font-size:.85rem;margin:.75rem 0 .3rem;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
small,.muted{color:var(--muted);font-weight:400}
button,select,input{font:inherit}
button{padding:.15rem .55rem;border:1px solid #b8c0c8;border-radius:4px;background:#fff;cursor:pointer}
button:hover{background:#eef1f4}button.danger{border-color:#e0a0a0;color:var(--bad)}button.small{font-size:.8rem;padding:0 .4rem}
.bar{display:flex;flex-wrap:wrap;align-items:center;gap:.35rem}
.live::before{content:"";display:inline-block;width:.6rem;height:.6rem;border-radius:50%;background:var(--warn);margin-right:.3rem}
.live.on::before{background:var(--ok)}.live.off::before{background:var(--bad)}
.clock{font-variant-numeric:tabular-nums}
.problem{margin:.5rem 1rem;padding:.4rem .6rem;border:1px solid #e0a0a0;background:#fdecec;color:var(--bad);border-radius:4px}
main{display:grid;grid-template-columns:minmax(0,3fr) minmax(22rem,2fr);gap:1rem;padding:0 1rem 1rem}
@media (max-width:1000px){main{grid-template-columns:1fr}}
.filters{display:flex;flex-wrap:wrap;gap:.5rem;margin-bottom:.4rem}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.2rem .35rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8rem;color:var(--muted);font-weight:600}
table.rows tbody tr.row{cursor:pointer}table.rows tbody tr.row:hover{background:#f6f8fa}
tr.row.selected{background:#e8f0fe}
td.path{overflow-wrap:anywhere;min-width:13rem;max-width:28rem}
td.num,.num{font-variant-numeric:tabular-nums;text-align:right}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em}
.s2{color:var(--ok)}.s3{color:var(--info)}.s4{color:var(--warn)}.s5,.s0{color:var(--bad)}
tr.why td{border-top:0;padding-top:0;color:var(--muted);font-size:.85rem}
tr.why td span.by{color:var(--bad)}
.tag{display:inline-block;padding:0 .35rem;border-radius:3px;background:var(--soft);border:1px solid var(--line);font-size:.8rem}
aside section{border:1px solid var(--line);border-radius:6px;padding:0 .75rem .6rem;margin-top:.75rem;background:#fff}
#detail{border-color:#9db7e6}
#detail h2 button{margin-left:auto}
pre{background:var(--soft);padding:.5rem;border-radius:4px;white-space:pre-wrap;word-break:break-all;max-height:22rem;overflow:auto;margin:.25rem 0}
dl{display:grid;grid-template-columns:auto 1fr;gap:.1rem .6rem;margin:.25rem 0}dt{color:var(--muted)}dd{margin:0;word-break:break-all}
.reason{border-left:3px solid var(--bad);padding:.25rem .5rem;background:#fff6f6;margin:.4rem 0}
.group{margin:.4rem 0}.group h4{margin:.3rem 0;font-size:.85rem}
.gen td{font-size:.85rem}.gen .actions{white-space:nowrap}
.timeline{color:var(--muted);font-size:.8rem}.timeline .planned{font-style:italic}
.window{font-size:.8rem;color:var(--muted);display:block}
.file input{max-width:12rem}
details>summary{cursor:pointer;list-style-position:outside;margin-left:1rem}details>summary h2{display:inline-flex}
.timeline .planned{opacity:.8}
a{color:var(--info)}
.hub select{max-width:22rem}
p.link{margin:.4rem 0;font-size:.85rem}
`;
