/** The public face of dashboard/: the partner dashboard's routes. */
export { dashboardRoutes } from './routes.ts';
