import type { JobRunner } from '../platform/jobs/runner.ts';
import type { UsersDeps } from './deps.ts';
import { VERIFY_PAYMENT_METHOD_JOB, verifyPaymentMethod } from './payment-methods-service.ts';

/** The Users module's background work: the simulated bank verification of new payment methods. */
export function registerUserJobs(runner: JobRunner, ctx: UsersDeps): void {
  runner.register(VERIFY_PAYMENT_METHOD_JOB, async (job) => {
    const { partnerId, paymentMethodId } = job.payload as { partnerId: string; paymentMethodId: string };
    await verifyPaymentMethod(ctx, partnerId, paymentMethodId);
  });
}
