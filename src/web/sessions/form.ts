import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../platform/errors.ts';

/** A console or dashboard form is small: a few fields of bounded length. */
const FORM_BODY_LIMIT_BYTES = 32 * 1024;
const MAX_FIELDS = 64;

/** A form's fields: one string per name (a repeated name keeps its first value). */
export type FormFields = Record<string, string>;

/**
 * Parses `application/x-www-form-urlencoded` bodies into FormFields. Call it inside the plugin
 * whose routes take forms: the parser is encapsulated there, so the partner API still answers
 * 415 to a form body.
 */
export function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
    (_request, body, done) => {
      try {
        done(null, parseForm(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}

export function parseForm(text: string): FormFields {
  const fields: FormFields = Object.create(null);
  let count = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    count += 1;
    if (count > MAX_FIELDS) throw formRefused('The form has too many fields.');
    // PostgreSQL cannot store U+0000; refused here, it never becomes a fault later.
    if (name.includes('\0') || value.includes('\0'))
      throw formRefused('The form holds a character no field accepts.');
    if (!(name in fields)) fields[name] = value;
  }
  return fields;
}

const formRefused = (message: string) =>
  new ApiError('ValidationException', 'validation.invalidForm', message);

/** One field of a parsed form, trimmed; '' when absent. */
export function formField(body: unknown, name: string): string {
  const value = (body as FormFields | undefined)?.[name];
  return typeof value === 'string' ? value.trim() : '';
}
