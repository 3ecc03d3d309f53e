/**
 * Server-rendered HTML for the hosted pages. Every dynamic value goes through `escapeHtml`
 * (text and double-quoted attributes alike); the `html` tag does it for interpolations, so a
 * template cannot forget. Markup built by another `html` call is passed through as SafeHtml.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

type Interpolation = SafeHtml | string | number | null | undefined | SafeHtml[];

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    if (Array.isArray(value)) out += value.map((part) => part.value).join('');
    else if (value instanceof SafeHtml) out += value.value;
    else if (value !== null && value !== undefined) out += escapeHtml(value);
    out += strings[index + 1] ?? '';
  });
  return new SafeHtml(out);
}

/** A catalogue text with markup in its `{name}` places; the text around them is escaped. */
export function fillHtml(template: string, values: Record<string, SafeHtml>): SafeHtml {
  const parts = template.split(/\{(\w+)\}/);
  let out = '';
  parts.forEach((part, index) => {
    if (index % 2 === 0) out += escapeHtml(part);
    else out += Object.hasOwn(values, part) ? values[part]!.value : escapeHtml(`{${part}}`);
  });
  return new SafeHtml(out);
}

/**
 * The hosted pages other than the checkout run only our own script and stylesheet and load
 * nothing from elsewhere: a value that slipped past escaping still could not execute. Forms post
 * only back to us; the page's script calls only our endpoints.
 */
export const PAGE_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};
