/** The public face of checkout/: what routes and other domains use. Inside checkout/, files import each other directly. */
export { purgeOldAttempts } from './attempts-store.ts';
export { brandingForOperator } from './branding.ts';
export { checkoutBrandingRoutes } from './branding-routes.ts';
export { checkoutPartnerRoutes } from './partner-routes.ts';
export { checkoutRoutes } from './routes.ts';
