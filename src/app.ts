import Fastify, { type FastifyInstance } from 'fastify';
import { operatorRoutes } from './operator/routes.ts';
import { opsRoutes } from './ops/routes.ts';
import type { AppContext } from './platform/context.ts';
import { installBodyParsers } from './platform/http/body.ts';
import { clientErrorResponder, installErrorHandling } from './platform/http/error-handler.ts';
import { installMetrics } from './platform/http/metrics.ts';
import { installOpenApi } from './platform/http/openapi.ts';
import { installRequestGuards } from './platform/http/request-guards.ts';
import { installValidators } from './platform/http/validators.ts';
import { serializeJson } from './platform/json.ts';
import { loggerOptions } from './platform/logger.ts';

export interface BuildOptions {
  /** Newest migration version, for /readyz. */
  latestMigration: string;
  /** Tests pass false to keep output quiet; otherwise the configured level is used. */
  logger?: boolean;
}

// Node's default header limit (16 KiB) would drop a long URL before we could answer it with the envelope.
const MAX_HEADER_BYTES = 64 * 1024;

/** Builds the HTTP app from the modules. No listening, no database start: main.ts owns the lifecycle. */
export async function buildApp(ctx: AppContext, options: BuildOptions): Promise<FastifyInstance> {
  const sandbox = ctx.config.env === 'sandbox';
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(ctx.config.logLevel),
    bodyLimit: ctx.config.bodyLimitBytes,
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    routerOptions: { maxParamLength: 200 },
    trustProxy: false,
    return503OnClosing: true,
    clientErrorHandler: clientErrorResponder(sandbox),
    genReqId: () => crypto.randomUUID(),
  });
  installErrorHandling(app, sandbox);
  installValidators(app);
  installBodyParsers(app);
  installRequestGuards(app);
  app.setSerializerCompiler(() => serializeJson);
  app.setReplySerializer(serializeJson);
  const metrics = installMetrics(app, ctx.db);
  await installOpenApi(app, ctx.config.publicUrls);

  await app.register(opsRoutes, { ctx, metrics, latestMigration: options.latestMigration });
  await app.register(operatorRoutes, { ctx });
  return app;
}
