import type { FastifyPluginAsync } from 'fastify';
import { notImplementedErrors } from './errors.ts';

/** Every method real clients use on these paths, so none of them falls through to 405 or 404. */
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/** The Wyre features Rampart answers 501 for, each with the paths clients call (docs/contract.md decision 48). */
const FEATURES: { feature: string; errorCode: string; paths: string[] }[] = [
  { feature: 'Swaps', errorCode: 'notImplemented.swaps', paths: ['/v3/swaps', '/v3/swaps/*'] },
  { feature: 'SEP-24 (MoneyGram) transactions', errorCode: 'notImplemented.sep24', paths: ['/v3/sep-24/*'] },
  {
    feature: 'Firewall permits (rate-limit bypass)',
    errorCode: 'notImplemented.firewallPermit',
    paths: ['/v3/firewall/permit'],
  },
];

/**
 * The 501 answers. They are given in onRequest, before credentials, body and query are looked
 * at: the answer is the same for everyone and reveals nothing, and a client debugging its
 * signature or body would otherwise chase a problem that does not matter. The per-IP rate limit
 * (an earlier onRequest hook) still counts them. Kept out of /openapi.json: they are not API.
 */
export const notImplementedRoutes: FastifyPluginAsync = async (app) => {
  for (const { feature, errorCode, paths } of FEATURES) {
    for (const url of paths) {
      app.route({
        method: [...METHODS],
        url,
        config: { auth: 'none' },
        schema: { hide: true },
        onRequest: async () => {
          throw notImplementedErrors.feature(feature, errorCode);
        },
        handler: async () => {
          throw notImplementedErrors.feature(feature, errorCode);
        },
      });
    }
  }
};
