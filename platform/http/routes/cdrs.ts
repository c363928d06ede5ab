import type { FastifyInstance, FastifyRequest } from "fastify";
import type { PlatformContext } from "../../context";
import { authorityOf } from "../../auth/sessions";
import { SIGNED_IN, principalOf } from "../app";
import { fail } from "../errors";
import { MAX_INT32, PAGE, PER_PAGE } from "../validation";
import { cdrJson, type CdrScope } from "../../cdr/cdr-store";

const DATE = "^\\d{4}-\\d{2}-\\d{2}([ T]\\d{2}:\\d{2}(:\\d{2})?)?$";

const listQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    dateType: { type: "string", enum: ["start_stamp", "end_stamp"] },
    startDate: { type: "string", pattern: DATE },
    endDate: { type: "string", pattern: DATE },
    cidNumber: { type: "string", maxLength: 64 },
    destNumber: { type: "string", maxLength: 64 },
    startBillsec: { type: "integer", minimum: 0, maximum: MAX_INT32 },
    endBillsec: { type: "integer", minimum: 0, maximum: MAX_INT32 },
    groupValue: { type: "integer", minimum: -MAX_INT32, maximum: MAX_INT32 },
    contextValue: { type: "string", maxLength: 64 },
    page: PAGE,
    perPage: PER_PAGE,
    last: { type: "integer", minimum: 1, maximum: 3650 },
  },
} as const;

const recordsQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    startDate: { type: "string", pattern: DATE },
    endDate: { type: "string", pattern: DATE },
    page: PAGE,
    perPage: PER_PAGE,
  },
} as const;

interface ListQuery {
  dateType?: "start_stamp" | "end_stamp";
  startDate?: string;
  endDate?: string;
  cidNumber?: string;
  destNumber?: string;
  startBillsec?: number;
  endBillsec?: number;
  groupValue?: number;
  contextValue?: string;
  page?: number;
  perPage?: number;
  last?: number;
}

const DEFAULT_PER_PAGE = 20;

/**
 * Call records (spec: Call records). An administrator reads every record; anyone else the
 * records of the calls their extensions took part in (see extensionScope), whatever numbers the
 * calls presented; a supervisor also every leg of a queue's call in a read by queue (see CdrScope). A group is a call-center queue (as in ccLogin), so `groupValue` is a queue id:
 * the legs of that queue's calls.
 */
export function cdrRoutes(app: FastifyInstance, ctx: PlatformContext) {
  const scopeOf = (req: FastifyRequest): CdrScope | undefined => {
    const p = principalOf(req);
    if (p.user.is_admin) return undefined;
    return {
      extensions: ctx.users.extensionsOf(p.user.id).map((e) => e.extn),
      queueCalls: authorityOf(p.user) === "supervisor",
    };
  };

  app.get<{ Querystring: ListQuery }>(
    "/api/cdrs",
    { config: SIGNED_IN, schema: { querystring: listQuery } },
    async (req, reply) => {
      const q = req.query;
      const page = q.page ?? 1;
      const perPage = q.perPage ?? DEFAULT_PER_PAGE;
      const scope = scopeOf(req);
      const { rowCount, json } = ctx.cdrs.listJson({
        ...(q.dateType ? { dateType: q.dateType } : {}),
        ...(q.startDate ? { startDate: q.startDate } : {}),
        ...(q.endDate ? { endDate: q.endDate } : {}),
        ...(q.cidNumber ? { cidNumber: q.cidNumber } : {}),
        ...(q.destNumber ? { destNumber: q.destNumber } : {}),
        ...(q.startBillsec !== undefined ? { startBillsec: q.startBillsec } : {}),
        ...(q.endBillsec !== undefined ? { endBillsec: q.endBillsec } : {}),
        ...(q.last !== undefined ? { lastDays: q.last } : {}),
        ...(q.groupValue !== undefined ? { queueId: q.groupValue } : {}),
        ...(q.contextValue ? { context: q.contextValue } : {}),
        ...(scope ? { scope } : {}),
        page,
        perPage,
      });
      // The records come written as JSON by the store (see listJson): the page is put around them.
      const pageCount = Math.max(1, Math.ceil(rowCount / perPage));
      return reply
        .type("application/json; charset=utf-8")
        .send(`{"rowCount":${rowCount},"page":${page},"pageCount":${pageCount},"data":[${json.join(",")}]}`);
    },
  );

  app.get<{ Querystring: { startDate?: string; endDate?: string; page?: number; perPage?: number } }>(
    "/api/cdrs/records",
    { config: SIGNED_IN, schema: { querystring: recordsQuery } },
    async (req) => {
      const q = req.query;
      const scope = scopeOf(req);
      const { rowCount, rows } = ctx.cdrs.list({
        ...(q.startDate ? { startDate: q.startDate } : {}),
        ...(q.endDate ? { endDate: q.endDate } : {}),
        ...(scope ? { scope } : {}),
        page: q.page ?? 1,
        perPage: q.perPage ?? DEFAULT_PER_PAGE,
      });
      return { total: rowCount, data: rows.map(cdrJson) };
    },
  );

  app.get("/api/cdrs/total", { config: SIGNED_IN }, async (req) => ({ count: ctx.cdrs.total(scopeOf(req)) }));

  app.get<{ Params: { uuid: string } }>("/api/cdrs/:uuid", { config: SIGNED_IN }, async (req) => {
    const row = ctx.cdrs.byUuid(req.params.uuid, scopeOf(req));
    if (!row) throw fail(404, "CDR Does Not Exist");
    return cdrJson(row);
  });

  app.get<{ Params: { uuid: string } }>("/api/cdrs/:uuid/related_cdrs", { config: SIGNED_IN }, async (req) => {
    const scope = scopeOf(req);
    const row = ctx.cdrs.byUuid(req.params.uuid, scope);
    if (!row) throw fail(404, "CDR Does Not Exist");
    return ctx.cdrs.related(row.uuid).filter((r) => ctx.cdrs.byUuid(r.uuid, scope) !== undefined);
  });
}
