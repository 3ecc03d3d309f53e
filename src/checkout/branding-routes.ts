import type { FastifyPluginAsync } from 'fastify';
import { type Static, Type } from 'typebox';
import { AccountParams, scopeOf } from '../identity/index.ts';
import { operatorAct } from '../operator/index.ts';
import type { AppContext } from '../platform/context.ts';
import { notFound } from '../platform/errors.ts';
import {
  errorResponses,
  OPERATOR_SECURITY,
  PARTNER_SECURITY,
  withExample,
} from '../platform/http/openapi.ts';
import {
  brandingForOperator,
  MAX_LOGO_BYTES,
  partnerBranding,
  setBrandingAsOperator,
  setPartnerBranding,
} from './branding.ts';
import { findLogo } from './branding-store.ts';

const BrandingBody = Type.Object(
  {
    name: Type.Optional(
      Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
        description: 'Shown to buyers as who they pay; null removes it',
      }),
    ),
    accentColor: Type.Optional(
      Type.Union([Type.String({ maxLength: 16 }), Type.Null()], {
        description: '#rrggbb; white text on it must have a contrast of at least 4.5:1',
      }),
    ),
    logo: Type.Optional(
      Type.Union([Type.String({ maxLength: Math.ceil((MAX_LOGO_BYTES + 4096) / 3) * 4 }), Type.Null()], {
        description: 'The image file (PNG, JPEG or WebP, at most 256 KiB), base64; null removes it',
      }),
    ),
  },
  { additionalProperties: false },
);
type BrandingBody = Static<typeof BrandingBody>;

const BrandingAnswer = Type.Object({
  name: Type.Union([Type.String(), Type.Null()]),
  accentColor: Type.Union([Type.String(), Type.Null()]),
  logoUrl: Type.Union([Type.String(), Type.Null()], {
    description: 'Where Rampart serves the logo (same origin as the checkout)',
  }),
});

const example = {
  name: 'Acme Wallet',
  accentColor: '#1a56db',
  logoUrl: '/purchase/logos/AC_UUEJLH74VEN/3f2a9c1d0b7e4a55',
};
const requestExample = { name: 'Acme Wallet', accentColor: '#1a56db', logo: 'iVBORw0KGgoAAAANSUhEUgAA…' };
const description =
  'Members left out keep their value, null removes one. Every member is checked before any is stored (400, nothing changed): `accentColor` must be #rrggbb with a contrast of at least 4.5:1 against white (`validation.lowContrast`), `logo` a PNG, JPEG or WebP file of at most 256 KiB by its bytes (`validation.logoType`, `validation.logoTooLarge`).';
const bodyLimit = Math.ceil((MAX_LOGO_BYTES + 4096) / 3) * 4 + 4096;
const tags = ['Hosted checkout'];

/**
 * The hosted checkout's branding (docs/contract.md, decisions 127–129): set by the partner for
 * itself or by the operator for a master account; the logo served by Rampart for the page.
 */
export const checkoutBrandingRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/v3/checkout/branding',
    {
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'How the hosted checkout shows this partner to its buyers',
        description:
          'The calling partner’s checkout branding: the name buyers see as who they pay, the accent colour of buttons and links, and where Rampart serves the logo; null where none is set.',
        response: { 200: withExample(BrandingAnswer, example), ...errorResponses(401, 429) },
      },
    },
    async (request) => partnerBranding(ctx, scopeOf(request).partnerId),
  );

  app.post<{ Body: BrandingBody }>(
    '/v3/checkout/branding',
    {
      bodyLimit,
      schema: {
        tags,
        security: PARTNER_SECURITY,
        summary: 'Set the hosted checkout’s name, logo and accent colour',
        description,
        body: withExample(BrandingBody, requestExample),
        response: { 200: withExample(BrandingAnswer, example), ...errorResponses(400, 401, 403, 413, 429) },
      },
    },
    async (request) => setPartnerBranding(ctx, scopeOf(request).partnerId, request.body),
  );

  app.get<{ Params: { accountId: string } }>(
    '/operator/v1/accounts/:accountId/checkout-branding',
    {
      schema: {
        tags: ['Operator'],
        security: OPERATOR_SECURITY,
        summary: 'A master account’s hosted checkout branding',
        description:
          'Operator token only. The name, accent colour and logo URL the master account’s hosted checkout shows; a sub-account or unknown id answers 404.',
        params: AccountParams,
        response: { 200: withExample(BrandingAnswer, example), ...errorResponses(401, 404) },
      },
    },
    async (request) => brandingForOperator(ctx, request.params.accountId),
  );

  app.post<{ Params: { accountId: string }; Body: BrandingBody }>(
    '/operator/v1/accounts/:accountId/checkout-branding',
    {
      bodyLimit,
      schema: {
        tags: ['Operator'],
        security: OPERATOR_SECURITY,
        summary: 'Set a master account’s hosted checkout name, logo and accent colour',
        description: `Operator token only. ${description} A sub-account or unknown id answers 404. Audited.`,
        params: AccountParams,
        body: withExample(BrandingBody, requestExample),
        response: { 200: withExample(BrandingAnswer, example), ...errorResponses(400, 401, 404, 413) },
      },
    },
    async (request) => {
      const act = operatorAct(request);
      const answer = await setBrandingAsOperator(ctx, act, request.params.accountId, request.body);
      request.operatorAudited = true;
      return answer;
    },
  );

  // The digest in the path changes with the logo, so the browser may keep it.
  app.get<{ Params: { partnerId: string; digest: string } }>(
    '/purchase/logos/:partnerId/:digest',
    {
      schema: {
        hide: true,
        params: Type.Object({
          partnerId: Type.String({ minLength: 1, maxLength: 64 }),
          digest: Type.String({ pattern: '^[0-9a-f]{16}$' }),
        }),
      },
    },
    async (request, reply) => {
      const logo = await findLogo(ctx.db, request.params.partnerId);
      if (!logo?.sha256.startsWith(request.params.digest)) throw notFound('Logo');
      return reply
        .headers({
          'x-content-type-options': 'nosniff',
          'cache-control': 'public, max-age=31536000, immutable',
          'content-security-policy': "default-src 'none'",
        })
        .type(logo.mediaType)
        .send(logo.bytes);
    },
  );
};
