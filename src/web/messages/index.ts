import { en, type Messages } from './en.ts';

/**
 * The hosted pages' words. English is the only catalogue today; a translation is one more file
 * of the `Messages` shape, chosen here.
 */
export const messages: Messages = en;

/** `fill('Pay {amount}', { amount: '20.00 USD' })` → 'Pay 20.00 USD'; unknown names stay as written. */
export function fill(template: string, values: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}
