/** The public face of not-implemented/: what routes and other domains use. Inside not-implemented/, files import each other directly. */

export { notImplementedRoutes } from './routes.ts';
