import Fastify, { type FastifyInstance } from 'fastify';
import { callbackOperatorRoutes, callbackRoutes } from './callbacks/index.ts';
import { chainsOperatorRoutes } from './chains/index.ts';
import { checkoutBrandingRoutes, checkoutPartnerRoutes, checkoutRoutes } from './checkout/index.ts';
import type { Rampart } from './compose.ts';
import {
  consoleAdminRoutes,
  consoleOperatorRoutes,
  consoleRoutes,
  consoleSetupRoutes,
  consoleSignInRoutes,
  consoleSupportRoutes,
  consoleTokenRoutes,
} from './console/index.ts';
import { dashboardRoutes } from './dashboard/index.ts';
import {
  accountDocumentRoutes,
  awaitReadAudits,
  identityOperatorRoutes,
  identityRoutes,
  keyUsageOn,
  legacyAccountRoutes,
  partnerAccess,
} from './identity/index.ts';
import { ledgerOperatorRoutes } from './ledger/index.ts';
import { limitsRoutes } from './limits/index.ts';
import { notImplementedRoutes } from './not-implemented/index.ts';
import { installOperatorAuth, operatorRoutes, operatorsApiRoutes } from './operator/index.ts';
import { opsRoutes } from './ops/index.ts';
import { ordersRoutes } from './orders/index.ts';
import { installBodyParsers } from './platform/http/body.ts';
import { clientErrorResponder, installErrorHandling, sendError } from './platform/http/error-handler.ts';
import { installMetrics } from './platform/http/metrics.ts';
import { installOpenApi } from './platform/http/openapi.ts';
import { installRateLimits } from './platform/http/rate-limit.ts';
import { installRequestGuards } from './platform/http/request-guards.ts';
import { installValidators } from './platform/http/validators.ts';
import { NUMBER_STRING_FORMAT, serializeJson, serializeJsonNumberStrings } from './platform/json.ts';
import { lazyChildLogger, loggerOptions } from './platform/logger.ts';
import { pricingOperatorRoutes, pricingRoutes } from './pricing/index.ts';
import { transfersOperatorRoutes, transfersRoutes, transfersV2Routes } from './transfers/index.ts';
import { paymentMethodRoutes, usersOperatorRoutes, usersRoutes } from './users/index.ts';
import {
  cardProcessorRoutes,
  refundRoutes,
  threeDsRoutes,
  walletOrderRoutes,
} from './wallet-orders/index.ts';
import { walletRoutes } from './wallets/index.ts';
import { onboardingWebRoutes } from './web/index.ts';

export interface BuildOptions {
  /** Newest migration version, for /readyz. */
  latestMigration: string;
  /** Tests pass false to keep output quiet; otherwise the configured level is used. */
  logger?: boolean;
  /** Where log lines go instead of stdout (tests capture them to check redaction). */
  logStream?: { write(line: string): void };
}

// Node's default header limit (16 KiB) would drop a long URL before we could answer it with the envelope.
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * Builds the HTTP app from the modules, each route plugin given the composed services (compose.ts).
 * No listening, no database start: runtime.ts owns the lifecycle.
 */
export async function buildApp(ctx: Rampart, options: BuildOptions): Promise<FastifyInstance> {
  const { exceptionIdPrefix } = ctx;
  const app = Fastify({
    logger: options.logger === false ? false : loggerOptions(ctx.config.logLevel, options.logStream),
    bodyLimit: ctx.config.bodyLimitBytes,
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    routerOptions: { maxParamLength: 200 },
    trustProxy: ctx.config.trustProxy,
    // Fastify's closing answer is its own JSON shape; request-guards.ts answers with the envelope.
    return503OnClosing: false,
    clientErrorHandler: clientErrorResponder(exceptionIdPrefix),
    // Bad percent-encoding in the path is rejected by the router before any hook: without this,
    // Fastify would answer with its own error shape.
    frameworkErrors: (error, request, reply) => sendError(request, reply, error, exceptionIdPrefix),
    genReqId: () => crypto.randomUUID(),
    childLoggerFactory: lazyChildLogger as never,
  });
  installErrorHandling(app, exceptionIdPrefix);
  installValidators(app);
  installRequestGuards(app, (request, reply, error) => sendError(request, reply, error, exceptionIdPrefix));
  const limits = await installRateLimits(
    app,
    {
      perIpPerMinute: ctx.config.rateLimitPerIpPerMinute,
      perKeyPerMinute: ctx.config.rateLimitPerKeyPerMinute,
      redisUrl: ctx.config.redisUrl,
    },
    (request) => request.caller?.apiKey,
  );
  app.addHook('onClose', limits.close);
  const keyUsage = keyUsageOn(ctx.asyncCommitDb, (error) =>
    app.log.warn({ err: error }, "API keys' last-used times not written"),
  );
  app.addHook('onClose', () => keyUsage.flush());
  // Authentication runs on the raw bytes, before any JSON is parsed.
  installBodyParsers(app, partnerAccess(ctx, limits.perKey, keyUsage));
  awaitReadAudits(app);
  installOperatorAuth(app, ctx);
  app.setSerializerCompiler(() => serializeJson);
  app.setReplySerializer(serializeJson);
  installNumberStrings(app);
  const metrics = installMetrics(app, ctx.db);
  await installOpenApi(app, ctx.config.publicUrls);

  await app.register(opsRoutes, { ctx, metrics, latestMigration: options.latestMigration });
  await app.register(operatorRoutes, { ctx });
  await app.register(operatorsApiRoutes, { ctx });
  await app.register(identityRoutes, { ctx });
  await app.register(accountDocumentRoutes, { ctx });
  await app.register(identityOperatorRoutes, { ctx });
  await app.register(legacyAccountRoutes, { ctx });
  await app.register(pricingRoutes, { ctx });
  await app.register(pricingOperatorRoutes, { ctx });
  await app.register(ordersRoutes, { ctx });
  await app.register(usersRoutes, { ctx });
  await app.register(paymentMethodRoutes, { ctx });
  await app.register(usersOperatorRoutes, { ctx });
  await app.register(onboardingWebRoutes, { ctx });
  await app.register(checkoutRoutes, { ctx });
  await app.register(checkoutPartnerRoutes, { ctx });
  await app.register(checkoutBrandingRoutes, { ctx });
  await app.register(ledgerOperatorRoutes, { ctx });
  await app.register(limitsRoutes, { ctx });
  await app.register(walletOrderRoutes, { ctx });
  await app.register(refundRoutes, { ctx });
  await app.register(threeDsRoutes, { ctx });
  await app.register(cardProcessorRoutes, { ctx });
  await app.register(transfersRoutes, { ctx });
  await app.register(transfersOperatorRoutes, { ctx });
  await app.register(transfersV2Routes, { ctx });
  await app.register(walletRoutes, { ctx });
  await app.register(chainsOperatorRoutes, { ctx });
  await app.register(callbackRoutes, { ctx });
  await app.register(callbackOperatorRoutes, { ctx });
  await app.register(consoleRoutes, { ctx });
  await app.register(consoleSetupRoutes, { ctx });
  await app.register(consoleSignInRoutes, { ctx });
  await app.register(consoleOperatorRoutes, { ctx });
  await app.register(consoleTokenRoutes, { ctx });
  await app.register(consoleSupportRoutes, { ctx });
  await app.register(consoleAdminRoutes, { ctx });
  await app.register(dashboardRoutes, { ctx });
  await app.register(notImplementedRoutes);
  return app;
}

/**
 * `format=json_numberstring`, which every route accepts, answers every amount as a decimal
 * string (docs/contract.md, Amounts). Only object answers are serialized, and only they reach
 * this hook; the request's flag is read once per answer, and other requests keep the default
 * serializer untouched. Answers sent as ready bytes (rates, idempotent replays) pick their
 * format where they are made.
 */
function installNumberStrings(app: FastifyInstance) {
  app.addHook('preSerialization', (request, reply, payload, done) => {
    if ((request.query as { format?: unknown } | undefined)?.format === NUMBER_STRING_FORMAT) {
      reply.serializer(serializeJsonNumberStrings);
    }
    done(null, payload);
  });
}
