import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import type { AppContext } from '../platform/context.ts';
import { migrationsComplete } from '../platform/db/migrate.ts';
import { ApiError } from '../platform/errors.ts';
import { errorResponses } from '../platform/http/openapi.ts';

export interface OpsOptions {
  ctx: AppContext;
  metrics: Registry;
  /** Version of the newest migration file; /readyz waits until the database has it. */
  latestMigration: string;
}

const tags = ['Operations'];
const Status = Type.Object({ status: Type.String() });

export const opsRoutes: FastifyPluginAsync<OpsOptions> = async (app, { ctx, metrics, latestMigration }) => {
  app.get(
    '/healthz',
    { schema: { tags, summary: 'The process is up', response: { 200: Status, ...errorResponses() } } },
    async () => ({
      status: 'ok',
    }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags,
        summary: 'Database reachable and migrations applied',
        response: { 200: Status, ...errorResponses(503) },
      },
    },
    async () => {
      const ready = await migrationsComplete(ctx.db, latestMigration).catch(() => false);
      if (!ready) {
        throw new ApiError(
          'ServiceUnavailableException',
          'service.notReady',
          'Database unreachable or not migrated.',
        );
      }
      return { status: 'ready' };
    },
  );

  app.get(
    '/metrics',
    { schema: { tags, summary: 'Prometheus metrics', hide: true } },
    async (_request, reply) => {
      reply.type(metrics.contentType);
      return metrics.metrics();
    },
  );
};
