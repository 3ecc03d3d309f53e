import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Rampart } from '../compose.ts';
import { advanceSandboxClock, sandboxClockState } from '../operator/index.ts';
import {
  type FeeScheduleJson,
  feeScheduleView,
  referencePrices,
  setFeeSchedule,
  setReferencePrices,
} from '../pricing/index.ts';
import { formOf } from './forms.ts';
import { consoleAct, consoleGuard } from './guard.ts';
import { queryNames, queryText } from './list-kit.ts';
import { attempt, redirectAfterChange, sessionOf, showPage } from './page-reply.ts';
import { settingsHtml } from './settings-page.ts';

const DONE: Record<string, string> = {
  fees: 'The fee schedule is saved; the next quote uses it.',
  rates: 'The reference prices are saved.',
  'rates-unchanged': 'No price was changed.',
  clock: 'The sandbox clock moved forward.',
};

/**
 * Fees, reference prices and the sandbox clock: read by `support`, changed by `admin` through
 * the services of PUT /operator/v1/fees, PUT /operator/v1/rates and POST /operator/v1/sandbox/clock.
 */
export const consoleSettingsRoutes: FastifyPluginAsync<{ ctx: Rampart }> = async (app, { ctx }) => {
  const read = consoleGuard(ctx, 'support');
  const change = consoleGuard(ctx, 'admin');

  const render = async (request: FastifyRequest, shown: { ok?: string; error?: string }) => {
    const [fees, rates] = await Promise.all([feeScheduleView(ctx), referencePrices(ctx)]);
    const clock = { sandbox: ctx.sandboxClock !== undefined, ...sandboxClockState(ctx) };
    return settingsHtml(sessionOf(request), { fees, rates, clock }, shown);
  };

  app.get(
    '/console/settings',
    { preHandler: read, schema: { hide: true, querystring: queryNames('done') } },
    async (request, reply) => {
      const done = queryText(request, 'done', 20);
      const main = await render(request, done === undefined ? {} : { ok: DONE[done] ?? '' });
      return showPage(reply, sessionOf(request), 'Fees, rates and clock', main, '/console/settings');
    },
  );

  const post = (
    path: string,
    run: (request: FastifyRequest, form: Record<string, string>) => Promise<string>,
  ) =>
    app.post(path, { preHandler: change, schema: { hide: true } }, async (request, reply) => {
      const outcome = await attempt(() => run(request, formOf(request)));
      if (outcome.ok) return redirectAfterChange(reply, `/console/settings?done=${outcome.value}`);
      const main = await render(request, { error: outcome.message });
      return showPage(
        reply,
        sessionOf(request),
        'Fees, rates and clock',
        main,
        '/console/settings',
        outcome.status,
      );
    });

  post('/console/settings/fees', async (request, form) => {
    await setFeeSchedule(ctx, consoleAct(request), feesBody(await feeScheduleView(ctx), form));
    return 'fees';
  });

  post('/console/settings/rates', async (request, form) => {
    const { prices } = await referencePrices(ctx);
    const changed: Record<string, { USD: string }> = {};
    for (const [code, price] of Object.entries(prices)) {
      const typed = form[`rate.${code}`]?.trim();
      if (typed !== undefined && typed !== price.USD) changed[code] = { USD: typed };
    }
    if (Object.keys(changed).length === 0) return 'rates-unchanged';
    await setReferencePrices(ctx, consoleAct(request), changed);
    return 'rates';
  });

  post('/console/settings/clock', async (request, form) => {
    const typed = (form.advanceSeconds ?? '').trim();
    // Anything but digits becomes NaN, which the service refuses with its own words.
    const seconds = /^\d{1,12}$/.test(typed) ? Number(typed) : Number.NaN;
    await advanceSandboxClock(ctx, consoleAct(request), seconds);
    return 'clock';
  });
};

/**
 * The fee form as PUT /operator/v1/fees's body: the schedule in force with every value the form
 * carries in its place. The service checks the whole schedule as it checks the API's.
 */
function feesBody(current: FeeScheduleJson, form: Record<string, string>): FeeScheduleJson {
  const methods: FeeScheduleJson['methods'] = {};
  for (const [method, rules] of Object.entries(current.methods)) {
    methods[method] = {};
    for (const [code, rule] of Object.entries(rules)) {
      const value = (part: keyof typeof rule) => form[`fee.${method}.${code}.${part}`]?.trim() ?? rule[part];
      methods[method][code] = {
        percent: value('percent'),
        flat: value('flat'),
        minOrder: value('minOrder'),
        maxOrder: value('maxOrder'),
      };
    }
  }
  const networkFees = Object.fromEntries(
    Object.entries(current.networkFees).map(([code, fee]) => [code, form[`network.${code}`]?.trim() ?? fee]),
  );
  return { methods, networkFees };
}
