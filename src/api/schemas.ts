import * as v from "valibot";

/** Ids and flags arrive as numbers or numeric strings depending on the endpoint. */
export const idString = v.pipe(
  v.union([v.string(), v.number()]),
  v.transform((x) => String(x)),
);

export const numberish = v.pipe(
  v.union([v.number(), v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/))]),
  v.transform((x) => Number(x)),
);

/** Optional text that may come as null or be absent: always a string. */
export const text = v.optional(
  v.pipe(
    v.nullable(v.union([v.string(), v.number()])),
    v.transform((x) => (x === null ? "" : String(x))),
  ),
  "",
);

export const flag = v.optional(numberish, 0);

/** `{rowCount, page, pageCount, data}` */
export function paged<T>(item: v.GenericSchema<unknown, T>) {
  return v.object({
    rowCount: numberish,
    page: v.optional(numberish, 1),
    pageCount: v.optional(numberish, 1),
    data: v.array(item),
  });
}

export interface Paged<T> {
  rowCount: number;
  page: number;
  pageCount: number;
  data: T[];
}
