/** Which routes of /openapi.json need no credentials, and which answer HTML for people. */
export const PUBLIC_PREFIXES = [
  '/healthz',
  '/readyz',
  '/metrics',
  '/v3/rates',
  '/v2/rates',
  '/v3/widget/',
  '/v2/sessions/auth/key',
];

/** Hosted pages answer HTML for people, not the JSON contract. */
export const HTML_PREFIXES = ['/purchase', '/onboarding', '/sandbox/', '/docs'];

/** Open routes inside an authenticated path family, matched whole (OpenAPI templates). */
export const PUBLIC_TEMPLATES = ['/v2/transfer/{transferId}/track'];

export const isPublicRoute = (path: string) =>
  PUBLIC_PREFIXES.some((prefix) => path.startsWith(prefix)) ||
  PUBLIC_TEMPLATES.includes(path.replace(/:(\w+)/g, '{$1}'));
export const isHtmlRoute = (path: string) => HTML_PREFIXES.some((prefix) => path.startsWith(prefix));
