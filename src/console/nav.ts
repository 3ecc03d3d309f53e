import type { OperatorRole } from '../web/sessions/index.ts';

export interface ConsoleNavEntry {
  href: string;
  label: string;
  /** The least role that sees the entry (and may open the page). */
  role: OperatorRole;
}

/**
 * The console's sections, in the order of the navigation. A page joins the console by adding
 * its line here and registering its routes; the home page lists the same entries.
 */
export const CONSOLE_NAV: ConsoleNavEntry[] = [
  { href: '/console', label: 'Home', role: 'support' },
  { href: '/console/operators', label: 'Operators', role: 'admin' },
  { href: '/console/tokens', label: 'API tokens', role: 'support' },
];
