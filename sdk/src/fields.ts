/**
 * Runtime lists of the field names of the SDK's request and response types, checked against
 * those types at compile time. The lists are what test/sdk compares with /openapi.json, so a
 * field renamed in the server's schemas, or in these types, fails CI instead of drifting.
 */

// biome-ignore lint/complexity/noBannedTypes: `{}` is the standard test for an optional key.
type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T] & string;
type OptionalKeys<T> = Exclude<keyof T & string, RequiredKeys<T>>;

/** Resolves to `unknown` when every key is listed, else to an object type naming the missing ones. */
type Exhaustive<All, Listed> = [All] extends [Listed] ? unknown : { missingKeys: Exclude<All, Listed> };

export interface FieldList {
  required: readonly string[];
  optional: readonly string[];
}

/** `fieldsOf<CreateAccountRequest>()({required: ['country'], optional: [...]})`: both lists exhaustive. */
export function fieldsOf<T>() {
  return <const R extends readonly RequiredKeys<T>[], const O extends readonly OptionalKeys<T>[]>(
    list: { required: R; optional: O } & Exhaustive<RequiredKeys<T>, R[number]> &
      Exhaustive<OptionalKeys<T>, O[number]>,
  ): FieldList => ({ required: list.required, optional: list.optional });
}

/** Every key of T, exhaustively (response types). */
export function keysOf<T>() {
  return <const K extends readonly (keyof T & string)[]>(
    keys: K & Exhaustive<keyof T & string, K[number]>,
  ): readonly string[] => keys;
}
