import { createReadStream, existsSync } from "node:fs";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { PlatformContext } from "../../context";
import { SIGNED_IN, principalOf } from "../app";
import { envelope, fail } from "../errors";
import { PAGE, PER_PAGE } from "../validation";
import { mediaFileJson, type MediaFileReader, type MediaFileRow } from "../../cdr/media-files";

const TYPES = [
  "SYSTEM",
  "UPLOAD",
  "RECORD",
  "SCRIPT",
  "DATABASE",
  "ASR",
  "VOICEMAIL",
  "TTS",
  "PDF",
  "FAX",
  "CONFERENCE",
];

const listQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    uuid: { type: "string", maxLength: 64 },
    type: { type: "string", maxLength: 32 },
    types: { type: "string", maxLength: 256 },
    page: PAGE,
    perPage: PER_PAGE,
  },
} as const;

/** "<id>" or "<id>.<ext>"; anything else names no media file. */
function parseFile(file: string): { id: number; ext?: string } {
  const m = /^([0-9]+)(?:\.([A-Za-z0-9]+))?$/.exec(file);
  if (!m) throw fail(404, "Media File Does Not Exist");
  return { id: Number(m[1]), ...(m[2] ? { ext: m[2] } : {}) };
}

/**
 * Media files (spec document 2: Media files) as far as the platform makes them: call recordings,
 * type RECORD. An administrator reads every file; a user the files they own and the recordings of
 * calls their extensions took part in. Only the owner or an administrator deletes one.
 */
export function mediaFileRoutes(app: FastifyInstance, ctx: PlatformContext) {
  /** Undefined for an administrator, who reads everything. */
  const readerOf = (req: FastifyRequest): MediaFileReader | undefined => {
    const p = principalOf(req);
    if (p.user.is_admin) return undefined;
    return { userId: p.user.id, extensions: ctx.users.extensionsOf(p.user.id).map((e) => e.extn) };
  };
  const readable = (req: FastifyRequest, row: MediaFileRow | undefined): MediaFileRow => {
    const reader = readerOf(req);
    if (!row || (reader && !ctx.mediaFiles.isReadable(row.id, reader))) throw fail(404, "Media File Does Not Exist");
    return row;
  };

  app.get<{ Querystring: { uuid?: string; type?: string; types?: string; page?: number; perPage?: number } }>(
    "/api/media_files",
    { config: SIGNED_IN, schema: { querystring: listQuery } },
    async (req) => {
      const q = req.query;
      const reader = readerOf(req);
      const types = [
        ...(q.type ? [q.type] : []),
        ...(q.types
          ? q.types
              .split(",")
              .map((t) => t.trim())
              .filter(Boolean)
          : []),
      ];
      const unknown = types.find((t) => !TYPES.includes(t.toUpperCase()));
      if (unknown) throw fail(400, `field 'type' in query must be one of ${TYPES.join(", ")}, not '${unknown}'`);
      const page = q.page ?? 1;
      const perPage = q.perPage ?? 20;
      const { rowCount, rows } = ctx.mediaFiles.list({
        ...(q.uuid ? { uuid: q.uuid } : {}),
        ...(types.length ? { types: types.map((t) => t.toUpperCase()) } : {}),
        ...(reader ? { reader } : {}),
        page,
        perPage,
      });
      return { rowCount, page, pageCount: Math.max(1, Math.ceil(rowCount / perPage)), data: rows.map(mediaFileJson) };
    },
  );

  app.get<{ Params: { uuid: string } }>("/api/media_files/uuid/:uuid", { config: SIGNED_IN }, async (req) =>
    mediaFileJson(readable(req, ctx.mediaFiles.byChannel(req.params.uuid))),
  );

  app.get<{ Params: { file: string } }>("/api/media_files/:file", { config: SIGNED_IN }, async (req, reply) => {
    const { id, ext } = parseFile(req.params.file);
    const row = readable(req, ctx.mediaFiles.byId(id));
    if (ext === undefined) return mediaFileJson(row);
    if (ext.toLowerCase() !== row.ext.toLowerCase() || !existsSync(row.abs_path))
      throw fail(404, "Media File Does Not Exist");
    return reply
      .type(row.mime || "application/octet-stream")
      .header("Content-Disposition", `inline; filename="${row.file_name.replace(/"/g, "")}"`)
      .send(createReadStream(row.abs_path));
  });

  app.delete<{ Params: { file: string } }>("/api/media_files/:file", { config: SIGNED_IN }, async (req) => {
    const { id } = parseFile(req.params.file);
    const row = readable(req, ctx.mediaFiles.byId(id));
    const p = principalOf(req);
    if (!p.user.is_admin && row.user_id !== p.user.id)
      throw fail(403, "no permission: only the recording's owner or an administrator may delete it");
    ctx.mediaFiles.delete(id);
    return envelope(String(id));
  });
}
