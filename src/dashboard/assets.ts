/**
 * The dashboard's one stylesheet, served at /dashboard/assets/dashboard.css: no framework, no
 * outside font, so the pages work offline and under a CSP without 'unsafe-inline'. Colours keep
 * text at WCAG AA contrast; the layout folds to one column on a phone.
 */
export const DASHBOARD_CSS = `
*{box-sizing:border-box}
html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f7f9;line-height:1.45}
body{margin:0}
a{color:#0b57d0}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem}
.skip:focus{left:1rem;z-index:2}
.top{display:flex;justify-content:space-between;align-items:center;gap:1rem;padding:.75rem 1.25rem;background:#1b2a41;color:#fff}
.top p{margin:0}
.brand{font-weight:700}
.brand span{font-weight:400;color:#c9d4e5}
.who{font-size:.95rem;color:#e8edf5;overflow-wrap:anywhere}
nav{background:#fff;border-bottom:1px solid #d0d7de}
.nav{list-style:none;margin:0;padding:0 1rem;display:flex;flex-wrap:wrap;gap:.25rem}
.nav a,.nav .link{display:inline-block;padding:.65rem .6rem;text-decoration:none;color:#1f2328;font:inherit;background:none;border:0;cursor:pointer}
.nav a[aria-current="page"]{border-bottom:3px solid #0b57d0;font-weight:600;color:#0b57d0}
.nav li:last-child{margin-left:auto}
main{max-width:72rem;margin:0 auto;padding:1.25rem}
main.narrow{max-width:28rem}
h1{font-size:1.5rem;margin:.25rem 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.table-wrap{overflow-x:auto;background:#fff;border:1px solid #d0d7de;border-radius:6px}
table{border-collapse:collapse;width:100%;font-size:.92rem}
caption{text-align:left;padding:.6rem .75rem;font-weight:600}
th,td{text-align:left;padding:.5rem .75rem;border-top:1px solid #e6e9ed;vertical-align:top}
th{background:#f0f2f5;font-weight:600}
td{overflow-wrap:anywhere}
.num{font-variant-numeric:tabular-nums}
.status{display:inline-block;padding:0 .45rem;border-radius:999px;background:#e8ebef;font-size:.82rem;font-weight:600}
.status-complete,.status-completed,.status-delivered,.status-approved,.status-live{background:#dff3e4;color:#0f5223}
.status-failed,.status-revoked,.status-expired,.status-rejected{background:#fde2e1;color:#8a1c17}
.status-pending,.status-processing,.status-running_checks,.status-unconfirmed{background:#fff1c2;color:#5c4300}
.empty{padding:1rem;background:#fff;border:1px dashed #c4cbd3;border-radius:6px}
.pager{margin:1rem 0}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:1rem}
.facts dt{font-weight:600}
.facts dd{margin:0;overflow-wrap:anywhere}
form.card,.card{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:1rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
.hint{display:block;font-weight:400;color:#57606a;font-size:.88rem}
input[type=text],input[type=password],input[type=number],select{width:100%;max-width:28rem;padding:.55rem .6rem;font:inherit;border:1px solid #8c959f;border-radius:4px;background:#fff}
.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
button.primary,button.danger,a.button{display:inline-block;margin-top:1rem;padding:.55rem 1rem;font:inherit;font-weight:600;border-radius:4px;border:1px solid transparent;cursor:pointer;text-decoration:none}
button.primary,a.button{background:#0b57d0;color:#fff}
button.danger{background:#fff;color:#a40e26;border-color:#a40e26;margin-top:0;padding:.3rem .7rem}
.notice{padding:.75rem 1rem;border-radius:6px;margin:0 0 1rem}
.notice.error{background:#fde2e1;color:#6e1410;border:1px solid #f1a7a3}
.notice.ok{background:#dff3e4;color:#0f5223;border:1px solid #9fd8ad}
.secret{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:1rem;background:#fff7d6;padding:.6rem;border:1px solid #e3c75a;border-radius:4px;overflow-wrap:anywhere;display:block}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.88rem}
@media (max-width:640px){
 .top{flex-direction:column;align-items:flex-start;gap:.2rem}
 .nav{padding:0 .5rem}
 .nav li:last-child{margin-left:0}
 main{padding:1rem .75rem}
 .facts{grid-template-columns:1fr}
}
`;
