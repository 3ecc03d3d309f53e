/**
 * The identity check port: what happens when a user submits the hosted onboarding page. The
 * sandbox's check passes at once (onboarding COMPLETE); production records the submission for an
 * operator's review (SUBMITTED), whose approval of the scope completes it.
 */
export interface IdentityCheck {
  /** The onboarding status a submission moves to. */
  onSubmission(): 'COMPLETE' | 'SUBMITTED';
  /** Shown on the hosted page: the check is simulated. */
  readonly simulated: boolean;
}

export const sandboxIdentityCheck: IdentityCheck = { onSubmission: () => 'COMPLETE', simulated: true };

export const operatorReview: IdentityCheck = { onSubmission: () => 'SUBMITTED', simulated: false };
