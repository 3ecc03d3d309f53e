/**
 * The console's stylesheet, served as /console/assets/console.css (same origin, no inline style,
 * system fonts only). Colours keep text at 4.5:1 or more on its background. The dashboard may
 * use it too. Building blocks other pages use: `.panel`, `.table` (inside `.table-wrap` for
 * scrolling on phones), `.form` with `.field`, `.button` (`.secondary`, `.danger`), `.notice`
 * (`.error`, `.ok`), `.badge` (`.ok`, `.warn`, `.bad`), `.facts` (a dl), `.pager`, `.actions`,
 * `.mono`, `.muted`, `.visually-hidden`.
 */
export const CONSOLE_CSS = `:root { --ink: #17202e; --muted: #4a5565; --line: #d5dae1; --bg: #f3f5f8; --panel: #fff;
  --accent: #1a4fbf; --accent-ink: #fff; --accent-soft: #e7eefc; --danger: #a3161b; --danger-soft: #fdecec;
  --ok: #14652f; --ok-soft: #e6f4ea; --warn: #7a4b00; --warn-soft: #fff4db; --focus: #f5a623; }
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", sans-serif;
  font-size: 16px; line-height: 1.5; color: var(--ink); background: var(--bg); }
a { color: var(--accent); text-underline-offset: 2px; }
a:hover { text-decoration-thickness: 2px; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip-link { position: absolute; left: .5rem; top: -3rem; background: var(--panel); color: var(--accent);
  padding: .5rem .75rem; border-radius: .375rem; z-index: 10; }
.skip-link:focus { top: .5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  clip-path: inset(50%); white-space: nowrap; }

.topbar { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .6rem 1.25rem;
  background: #16213a; color: #fff; }
.topbar a { color: #fff; }
.brand { font-weight: 700; font-size: 1.05rem; text-decoration: none; margin-right: auto; letter-spacing: .01em; }
.who { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem .75rem; font-size: .925rem; }
.who .role { display: inline-block; padding: .05rem .5rem; border-radius: 999px; background: #2e3c5c; color: #fff; font-size: .8rem; }
.who form { margin: 0; }
.topbar .button.secondary { background: transparent; color: #fff; border-color: #8d9bb8; padding: .3rem .75rem; }

.layout { display: grid; grid-template-columns: 14rem minmax(0, 1fr); gap: 1.5rem; max-width: 90rem;
  margin: 0 auto; padding: 1.25rem; }
.nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: .15rem; }
.nav a { display: block; padding: .45rem .75rem; border-radius: .375rem; color: var(--ink); text-decoration: none; }
.nav a:hover { background: #e4e8ee; }
.nav a[aria-current="page"] { background: var(--accent-soft); color: var(--accent); font-weight: 600; }
main { min-width: 0; }
.narrow { max-width: 28rem; margin: 2.5rem auto; padding: 0 1rem; }

h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .75rem; }
h3 { font-size: 1.05rem; margin: 1.25rem 0 .5rem; }
p { margin: 0 0 .75rem; }
.muted { color: var(--muted); }
.mono, code, kbd { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .925em; }
.mono { overflow-wrap: anywhere; }
code { background: #eceff3; padding: .05rem .3rem; border-radius: .25rem; overflow-wrap: anywhere; }

.panel { background: var(--panel); border: 1px solid var(--line); border-radius: .5rem; padding: 1.25rem;
  margin: 0 0 1.25rem; }
.panel > :last-child { margin-bottom: 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: 1rem; margin: 0 0 1.25rem;
  padding: 0; list-style: none; }
.cards li { margin: 0; }
.cards a { display: block; height: 100%; background: var(--panel); border: 1px solid var(--line); border-radius: .5rem;
  padding: 1rem; text-decoration: none; color: var(--ink); }
.cards a:hover { border-color: var(--accent); }
.cards strong { display: block; color: var(--accent); margin-bottom: .25rem; }

.form { display: grid; gap: .9rem; }
.field { display: grid; gap: .3rem; min-width: 0; }
.field-row { display: flex; flex-wrap: wrap; gap: .9rem; }
.field-row > .field { flex: 1 1 12rem; }
label, .label { font-weight: 600; }
.hint { color: var(--muted); font-size: .875rem; }
input, select, textarea { width: 100%; font: inherit; padding: .55rem .65rem; border: 1px solid #737f90;
  border-radius: .375rem; background: #fff; color: inherit; }
input[aria-invalid="true"] { border-color: var(--danger); }
textarea { min-height: 6rem; }
.one-time-code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 1.4rem;
  letter-spacing: .3em; max-width: 12rem; }
fieldset { border: 1px solid var(--line); border-radius: .5rem; padding: .75rem 1rem; margin: 0; min-width: 0; }
legend { font-weight: 600; padding: 0 .25rem; }

.button, button { display: inline-flex; align-items: center; justify-content: center; gap: .4rem; font: inherit;
  font-weight: 600; padding: .55rem 1rem; border-radius: .375rem; border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-ink); cursor: pointer; text-decoration: none; min-height: 2.5rem; }
.button:hover, button:hover { filter: brightness(1.08); }
.button.secondary, button.secondary { background: var(--panel); color: var(--accent); }
.button.danger, button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
.button.small, button.small { padding: .25rem .6rem; min-height: 2rem; font-size: .875rem; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.actions form { margin: 0; display: inline-flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
.actions select { width: auto; }

.notice { border: 1px solid var(--line); border-left-width: 4px; border-radius: .375rem; padding: .75rem 1rem;
  margin: 0 0 1rem; background: var(--panel); }
.notice.error { border-color: var(--danger); background: var(--danger-soft); color: #5c0b0e; }
.notice.ok { border-color: var(--ok); background: var(--ok-soft); color: #0c3d1c; }
.notice.warn { border-color: var(--warn); background: var(--warn-soft); color: #4d3000; }
.secret { display: block; padding: .6rem .75rem; background: #eceff3; border-radius: .375rem; user-select: all; }

.badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .8rem; font-weight: 600;
  background: #e6e9ef; color: #2c3644; white-space: nowrap; }
.badge.ok { background: var(--ok-soft); color: var(--ok); }
.badge.warn { background: var(--warn-soft); color: var(--warn); }
.badge.bad { background: var(--danger-soft); color: var(--danger); }

.table-wrap { overflow-x: auto; background: var(--panel); border: 1px solid var(--line); border-radius: .5rem;
  margin: 0 0 1rem; }
.table { width: 100%; border-collapse: collapse; font-size: .95rem; }
.table th, .table td { text-align: left; padding: .55rem .75rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.table th { background: #f7f8fa; font-weight: 600; white-space: nowrap; }
.table tr:last-child td { border-bottom: 0; }
.table .num { text-align: right; font-variant-numeric: tabular-nums; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .4rem 1.25rem; margin: 0 0 1rem; }
.facts dt { font-weight: 600; color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.pager { display: flex; gap: .75rem; align-items: center; justify-content: flex-end; margin: .5rem 0 1rem; }
.qr { display: block; width: 12rem; height: 12rem; background: #fff; padding: .5rem; border: 1px solid var(--line); }

@media (max-width: 48rem) {
  .layout { grid-template-columns: minmax(0, 1fr); gap: .75rem; padding: .75rem; }
  .nav ul { flex-direction: row; flex-wrap: wrap; gap: .25rem; }
  .nav a { padding: .35rem .6rem; background: var(--panel); border: 1px solid var(--line); }
  .topbar { padding: .6rem .75rem; }
  .panel { padding: 1rem; }
  .facts { grid-template-columns: minmax(0, 1fr); gap: .1rem; }
  .facts dd { margin-bottom: .5rem; }
  h1 { font-size: 1.35rem; }
}
`;
