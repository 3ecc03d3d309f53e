import { html, PAGE_SECURITY_HEADERS, page, type SafeHtml } from '../web/index.ts';
import type { WalletOrderBody } from './view.ts';

/** The simulated card issuer's 3-D Secure challenge: plain forms, no script, nothing third-party. */
export function threeDsPageHtml(
  order: WalletOrderBody,
  action: string,
  returnUrl: string | undefined,
  redirect: string | undefined,
): string {
  const hidden: SafeHtml[] = [];
  if (returnUrl) hidden.push(html`<input type="hidden" name="returnUrl" value="${returnUrl}">`);
  if (redirect) hidden.push(html`<input type="hidden" name="redirect" value="${redirect}">`);
  const amount = `${order.sourceAmount.toFixed()} ${order.sourceCurrency}`;
  return page(
    '3-D Secure: confirm your payment',
    html`<h1>Confirm your payment</h1>
<p>Sandbox issuer: this page simulates your bank’s 3-D Secure check. No real bank is involved.</p>
<dl>
<dt>Amount</dt><dd id="amount">${amount}</dd>
<dt>Card</dt><dd id="card">${order.paymentMethodName}</dd>
<dt>Order</dt><dd id="order-id">${order.id}</dd>
</dl>
<form method="post" action="${action}">
${hidden}<input type="hidden" name="decision" value="approve">
<button type="submit" id="approve">Approve payment</button>
</form>
<form method="post" action="${action}">
${hidden}<input type="hidden" name="decision" value="decline">
<button type="submit" id="decline">Decline payment</button>
</form>`,
  );
}

const OUTCOME_TEXT: Record<string, string> = {
  APPROVED: 'Payment approved. You can return to the merchant.',
  DECLINED: 'Payment declined. The order has failed and nothing was charged.',
  EXPIRED: 'This check expired. The order has failed and nothing was charged.',
  NOT_PENDING: 'This payment has already been decided.',
  PENDING: 'Your bank has not confirmed the payment yet. The merchant will let you know.',
};

export function threeDsOutcomeHtml(outcome: string): string {
  return page('3-D Secure', html`<h1>3-D Secure</h1><p id="outcome">${OUTCOME_TEXT[outcome] ?? outcome}</p>`);
}

/**
 * Only a path on this site: "/…" but not "//host" or "/\host" (which browsers treat as another
 * host), checked by resolving against a placeholder origin. No open redirect.
 */
export function safeReturnPath(value: string | undefined): string | undefined {
  if (value === undefined || value.length === 0 || value.length > 2048) return undefined;
  if (!value.startsWith('/') || value.startsWith('//') || /[\\\p{Cc}]/u.test(value)) return undefined;
  try {
    const resolved = new URL(value, 'http://placeholder.invalid');
    return resolved.origin === 'http://placeholder.invalid' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The page's headers. A with-redirection page's forms end at the reservation's URLs after the
 * decision, and browsers hold a form's redirects to `form-action`: their origins join 'self'.
 */
export function threeDsPageHeaders(redirectOrigins: readonly string[]): typeof PAGE_SECURITY_HEADERS {
  if (redirectOrigins.length === 0) return PAGE_SECURITY_HEADERS;
  const policy = PAGE_SECURITY_HEADERS['content-security-policy'].replace(
    "form-action 'self'",
    ["form-action 'self'", ...redirectOrigins].join(' '),
  );
  return { ...PAGE_SECURITY_HEADERS, 'content-security-policy': policy };
}
