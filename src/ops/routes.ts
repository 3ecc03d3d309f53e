import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import type { AppContext } from '../platform/context.ts';
import { migrationsComplete } from '../platform/db/migrate.ts';
import { ApiError } from '../platform/errors.ts';
import { errorResponses, withExample } from '../platform/http/openapi.ts';

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
    {
      schema: {
        tags,
        summary: 'The process is up',
        description:
          'No credentials. Answers 200 as long as the process serves HTTP, without touching the database: a liveness probe (restart the process when it fails).',
        response: { 200: withExample(Status, { status: 'ok' }), ...errorResponses() },
      },
    },
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
        description:
          'No credentials. 200 when the database answers and has the newest migration this build ships; otherwise 503 `service.notReady` (transient): a readiness probe (send no traffic until it passes).',
        response: { 200: withExample(Status, { status: 'ready' }), ...errorResponses(503) },
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
