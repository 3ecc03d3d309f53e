/** The public face of ops/: what routes and other domains use. Inside ops/, files import each other directly. */

export { opsRoutes } from './routes.ts';
