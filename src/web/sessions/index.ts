/** The public face of web/sessions/: the browser sessions of the console and the partner dashboard. */
export { COOKIES, type SessionKind } from './cookies.ts';
export { CSRF_FIELD, checkFormPost, csrfField } from './csrf.ts';
export { type FormFields, formField, parseForm, registerFormParser } from './form.ts';
export {
  endSession,
  endSessionsOf,
  loadSession,
  loadSessionAt,
  type OperatorRole,
  type SessionDeps,
  type SessionOwner,
  type SessionStage,
  startSession,
  type WebSession,
} from './sessions.ts';
