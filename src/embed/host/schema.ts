/**
 * The shape checks of the embedding protocol: a few combinators that say what a message may be
 * and report the first thing wrong with it. Both sides of the channel check every message they
 * receive with the same schemas (`protocol.ts`). A library such as valibot would do the same, but
 * the host SDK has a budget of 6 KB gzip for everything, and these lines are a few hundred bytes.
 *
 * A schema returns `undefined` when the value fits, else a short description of the problem.
 * Objects are strict: a field the schema does not name is refused, so a message cannot smuggle
 * anything past the check. Only plain data passes (what structured cloning of JSON-like values
 * gives); anything else (functions cannot be posted; typed arrays, maps, dates can) is refused.
 */
export type Schema<T> = ((value: unknown) => string | undefined) & { readonly __type?: T };
export type Infer<S> = S extends Schema<infer T> ? T : never;

type Fields = Record<string, Schema<unknown>>;
type Shape<R extends Fields, O extends Fields> = { [K in keyof R]: Infer<R[K]> } & { [K in keyof O]?: Infer<O[K]> };

const schema = <T>(check: (value: unknown) => string | undefined): Schema<T> => check as Schema<T>;

/** A string of at most `max` characters, matching `pattern` if one is given. */
export const str = (max: number, pattern?: RegExp): Schema<string> =>
  schema((v) =>
    typeof v !== "string"
      ? "must be a string"
      : v.length > max
        ? `must be at most ${max} characters`
        : pattern && !pattern.test(v)
          ? "has a wrong format"
          : undefined,
  );

/** A whole number from `min` to `max`. */
export const int = (min: number, max: number): Schema<number> =>
  schema((v) =>
    typeof v !== "number" || !Number.isInteger(v) || v < min || v > max
      ? `must be a whole number from ${min} to ${max}`
      : undefined,
  );

export const bool: Schema<boolean> = schema((v) => (typeof v === "boolean" ? undefined : "must be true or false"));

/** Exactly `value`. */
export const literal = <T extends string | boolean>(value: T): Schema<T> =>
  schema((v) => (v === value ? undefined : `must be ${String(value)}`));

export const oneOf = <T extends string>(...values: T[]): Schema<T> =>
  schema((v) => ((values as unknown[]).includes(v) ? undefined : `must be one of ${values.join(", ")}`));

export const nullable = <T>(inner: Schema<T>): Schema<T | null> => schema((v) => (v === null ? undefined : inner(v)));

export const list = <T>(item: Schema<T>, max: number): Schema<T[]> =>
  schema((v) => {
    if (!Array.isArray(v)) return "must be a list";
    if (v.length > max) return `must have at most ${max} items`;
    for (let i = 0; i < v.length; i++) {
      const problem = item(v[i]);
      if (problem) return at(`[${i}]`, problem);
    }
    return undefined;
  });

/** A plain object of at most `max` fields, each named as `key` allows, each value fitting `value`. */
export const dict = <T>(key: Schema<string>, value: Schema<T>, max: number): Schema<Record<string, T>> =>
  schema((v) => {
    if (!isRecord(v)) return "must be an object";
    const entries = Object.entries(v);
    if (entries.length > max) return `must have at most ${max} fields`;
    for (const [k, x] of entries) {
      if (key(k)) return `has a field name that is not allowed (${JSON.stringify(k.slice(0, 40))})`;
      const problem = value(x);
      if (problem) return at(k, problem);
    }
    return undefined;
  });

/** A plain object with the `required` fields and any of the `optional` ones, and nothing else. */
export const obj = <R extends Fields, O extends Fields = Record<never, never>>(
  required: R,
  optional?: O,
): Schema<Shape<R, O>> =>
  schema((v) => {
    if (!isRecord(v)) return "must be an object";
    for (const key of Object.keys(v)) {
      if (!Object.hasOwn(required, key) && !(optional && Object.hasOwn(optional, key)))
        return `${key}: is not a known field`;
    }
    for (const [key, check] of Object.entries(required)) {
      const problem = Object.hasOwn(v, key) ? check(v[key]) : "is missing";
      if (problem) return at(key, problem);
    }
    for (const [key, check] of Object.entries(optional ?? {})) {
      const problem = Object.hasOwn(v, key) ? check(v[key]) : undefined;
      if (problem) return at(key, problem);
    }
    return undefined;
  });

/** A problem found inside `key`, with the path to it: `args.number: is missing`, `calls[0]: must be an object`. */
export function at(key: string, problem: string): string {
  if (!/^\S+: /.test(problem)) return `${key}: ${problem}`;
  return problem.startsWith("[") ? key + problem : `${key}.${problem}`;
}

/** A plain object (not an array, a class instance, a map or a date). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}
