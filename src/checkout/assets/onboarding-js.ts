export const ONBOARDING_JS = '';
