/**
 * The hosted pages' stylesheet, served as /purchase/assets/checkout.css (same origin, no inline
 * style). `--accent` is the partner's colour when it set one (a theme stylesheet after this one);
 * checkout/branding.ts only takes colours white text stays readable on.
 */
export const CHECKOUT_CSS = `:root { --accent: #1a56db; --ink: #1d2433; --muted: #4b5563; --line: #e3e6eb; --danger: #a4161a; }
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 16px;
  line-height: 1.45; color: var(--ink); background: #f5f6f8; }
.brand, main, .page-footer { max-width: 34rem; margin: 0 auto; padding: 1rem; background: #fff; }
.brand { display: flex; align-items: center; gap: .75rem; border-bottom: 4px solid var(--accent); padding-bottom: .75rem; }
.brand-logo { max-height: 40px; max-width: 10rem; object-fit: contain; }
.brand-name { margin: 0; font-weight: 700; font-size: 1.1rem; }
main { min-height: 70vh; }
.page-footer { color: var(--muted); font-size: .875rem; text-align: center; background: transparent; }
.page-footer p { margin: 0; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.15rem; margin: 1rem 0 .5rem; }
fieldset { border: 1px solid #c9ced6; border-radius: .5rem; padding: .75rem; margin: 0 0 1rem; min-width: 0; }
legend { font-weight: 600; padding: 0 .25rem; }
.field { margin: 0 0 .75rem; min-width: 0; flex: 1 1 0; }
.row { display: flex; gap: .75rem; flex-wrap: wrap; }
.row > .field { min-width: 8rem; }
label { display: block; font-weight: 500; margin-bottom: .25rem; }
input, select { width: 100%; font: inherit; font-size: 16px; padding: .6rem .65rem; border: 1px solid #6b7280;
  border-radius: .375rem; background: #fff; color: inherit; }
input[type="file"] { padding: .4rem; }
input[readonly] { background: #eef0f3; border-style: dashed; }
input[aria-invalid="true"], select[aria-invalid="true"] { border: 2px solid var(--danger); }
.with-badge { position: relative; }
.badge { display: block; margin-top: .25rem; font-size: .875rem; color: var(--muted); }
.badge[data-brand] { color: var(--ink); font-weight: 600; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
button, .button { display: block; box-sizing: border-box; text-align: center; text-decoration: none; font: inherit;
  font-weight: 600; width: 100%; padding: .8rem 1rem; border: 0; border-radius: .375rem;
  background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #e7ecf7; color: #1a3b8f; margin-top: .25rem; }
button:disabled { background: #6b7280; cursor: not-allowed; }
a { color: var(--accent); }
.hint, .sub { margin: .25rem 0 0; font-size: .875rem; color: var(--muted); }
.sub { display: block; font-weight: 400; }
.field-error, .error { margin: .25rem 0 0; color: var(--danger); font-weight: 500; }
#errors { border: 2px solid var(--danger); border-radius: .5rem; padding: .5rem .75rem; margin: 0 0 1rem; background: #fff5f5; }
#errors p { margin: 0; font-weight: 600; }
#errors a { color: var(--danger); }
dl { margin: 0 0 .5rem; }
dl > div { display: flex; justify-content: space-between; gap: 1rem; padding: .3rem 0; border-bottom: 1px solid var(--line); }
dt { color: var(--muted); }
dd { margin: 0; font-weight: 600; text-align: right; overflow-wrap: anywhere; }
dl .total dt, dl .total dd { color: var(--ink); font-weight: 700; }
#progress-status { font-weight: 600; }
progress { width: 100%; height: .6rem; accent-color: var(--accent); }
#steps { padding-left: 1.25rem; margin: .5rem 0; color: var(--muted); }
#steps li[aria-current="step"] { color: var(--ink); font-weight: 700; }
#steps li.done { color: var(--ink); }
#next { margin: 1rem 0 0; }
.status { font-weight: 600; }
.requirements li, #scopes li { margin: .3rem 0; }
.saved { color: #196127; font-weight: 600; }
`;
