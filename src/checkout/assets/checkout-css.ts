/** The checkout page's stylesheet, served as /purchase/assets/checkout.css (same origin, no inline style). */
export const CHECKOUT_CSS = `*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 16px;
  line-height: 1.45; color: #1d2433; background: #f5f6f8; }
main { max-width: 34rem; margin: 0 auto; padding: 1rem; background: #fff; min-height: 100vh; }
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
input[readonly] { background: #eef0f3; border-style: dashed; }
input[aria-invalid="true"], select[aria-invalid="true"] { border: 2px solid #a4161a; }
:focus-visible { outline: 3px solid #1a56db; outline-offset: 2px; }
button { font: inherit; font-weight: 600; width: 100%; padding: .8rem 1rem; border: 0; border-radius: .375rem;
  background: #1a56db; color: #fff; cursor: pointer; }
button.secondary { background: #e7ecf7; color: #1a3b8f; margin-top: .25rem; }
button:disabled { background: #8d99ae; cursor: not-allowed; }
.hint { margin: .25rem 0 0; font-size: .875rem; color: #4b5563; }
.field-error, .error { margin: .25rem 0 0; color: #a4161a; font-weight: 500; }
#errors { border: 2px solid #a4161a; border-radius: .5rem; padding: .5rem .75rem; margin: 0 0 1rem; background: #fff5f5; }
#errors p { margin: 0; font-weight: 600; }
#errors a { color: #a4161a; }
#quote { margin: 0 0 .5rem; }
#quote > div { display: flex; justify-content: space-between; gap: 1rem; padding: .3rem 0; border-bottom: 1px solid #eceef2; }
#quote dt { color: #4b5563; }
#quote dd { margin: 0; font-weight: 600; text-align: right; overflow-wrap: anywhere; }
#progress-status { font-weight: 600; }
`;
