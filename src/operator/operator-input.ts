import type { OperatorRole } from '../web/sessions/index.ts';
import { operatorErrors } from './errors.ts';
import { passwordProblem } from './password.ts';
import { isOperatorRole } from './roles.ts';

/** An e-mail address as people type it: one @, a dot in the domain, no spaces; kept lower-case. */
const EMAIL = /^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/;

export function normalEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) throw operatorErrors.invalidEmail();
  return email;
}

export function normalName(raw: string): string {
  const name = raw.trim();
  if (name.length < 1 || name.length > 100) throw operatorErrors.invalidName();
  return name;
}

export function checkedRole(raw: unknown): OperatorRole {
  if (!isOperatorRole(raw)) throw operatorErrors.invalidRole();
  return raw;
}

export function checkedPassword(raw: string): string {
  const problem = passwordProblem(raw);
  if (problem) throw operatorErrors.weakPassword(problem);
  return raw;
}

export interface NewOperatorInput {
  email: string;
  name: string;
  password: string;
}
