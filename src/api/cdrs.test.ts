import { describe, expect, it } from "vitest";
import { PlatformClient } from "./client";
import { PlatformError } from "./errors";
import { fetchRecording, getCdr, listCdrs, parseStamp } from "./cdrs";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

function clientAnswering(handler: (url: URL, headers: Record<string, string>) => Response) {
  const seen: { url: URL; headers: Record<string, string> }[] = [];
  const fetch = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const headers = { ...(init.headers as Record<string, string>) };
    seen.push({ url, headers });
    return handler(url, headers);
  }) as typeof globalThis.fetch;
  const client = new PlatformClient({ baseUrl: "http://pbx.test", fetch });
  client.setCredentials({ token: "tok-1", expires: Date.now() / 1000 + 3600 });
  return { client, seen };
}

/** A media file record as the spec lists its fields (document 2, "Media file"). */
const mediaFile = (id: string, ext: string) => ({
  id,
  type: "RECORD",
  name: `${id}.${ext}`,
  ext,
  mime: ext === "mp3" ? "audio/mpeg" : "audio/wav",
  file_size: 4,
  abs_path: `/rec/${id}.${ext}`,
});

const row = {
  uuid: "a1b2",
  bleg_uuid: "",
  caller_id_name: "Alice Agent",
  caller_id_number: "1001",
  destination_number: "5550100",
  start_stamp: "2031-05-06 14:35:00",
  answer_stamp: "2031-05-06 14:35:04",
  end_stamp: "2031-05-06 14:36:10",
  duration: "70",
  billsec: 66,
  hangup_cause: "NORMAL_CLEARING",
  direction: "inbound",
  media_file_id: 17,
  sip_call_id: "abc@host",
  variables: { cc_queue: "support" },
};

describe("call records", () => {
  it("lists a page with the filters as the spec names them, decoding numbers, stamps and the recording", async () => {
    const { client, seen } = clientAnswering(() => json(200, { rowCount: 41, page: 2, pageCount: 5, data: [row] }));
    const page = await listCdrs(client, {
      page: 2,
      perPage: 10,
      callerNumber: "1001",
      destinationNumber: "",
      startDate: "2031-05-01",
      endDate: "2031-05-06",
      lastDays: 7,
    });
    const q = seen[0]!.url.searchParams;
    expect(seen[0]!.url.pathname).toBe("/api/cdrs");
    expect(Object.fromEntries(q)).toEqual({
      page: "2",
      perPage: "10",
      cidNumber: "1001",
      startDate: "2031-05-01",
      endDate: "2031-05-06",
      last: "7",
    });
    expect(seen[0]!.headers["X-XTRA-AUTH-ID"]).toBe("tok-1");
    expect(page).toMatchObject({ rowCount: 41, page: 2, pageCount: 5 });
    expect(page.data[0]).toEqual({
      uuid: "a1b2",
      bLegUuid: "",
      callerName: "Alice Agent",
      callerNumber: "1001",
      destination: "5550100",
      direction: "inbound",
      startedAt: new Date(2031, 4, 6, 14, 35, 0).getTime(),
      answeredAt: new Date(2031, 4, 6, 14, 35, 4).getTime(),
      endedAt: new Date(2031, 4, 6, 14, 36, 10).getTime(),
      duration: 70,
      billsec: 66,
      hangupCause: "NORMAL_CLEARING",
      recordingId: "17",
      sipCallId: "abc@host",
      otherUuid: "",
      cc: { cc_queue: "support" },
    });
  });

  it("reads records with missing, null and empty fields: an unanswered, unrecorded call", async () => {
    const { client } = clientAnswering(() =>
      json(200, {
        rowCount: "1",
        data: [
          {
            uuid: 99,
            caller_id_number: null,
            answer_stamp: "",
            duration: null,
            media_file_id: "",
            hangup_cause: "CALL_REJECTED",
          },
        ],
      }),
    );
    const page = await listCdrs(client);
    expect(page.pageCount).toBe(1);
    expect(page.data[0]).toMatchObject({
      uuid: "99",
      callerNumber: "",
      answeredAt: null,
      startedAt: null,
      duration: 0,
      recordingId: null,
      hangupCause: "CALL_REJECTED",
    });
  });

  it("reads the listing inside an envelope and as a bare array", async () => {
    const enveloped = clientAnswering(() =>
      json(200, { code: 200, message: "success", data: { rowCount: 1, page: 1, pageCount: 1, data: [row] } }),
    );
    expect((await listCdrs(enveloped.client)).data[0]!.uuid).toBe("a1b2");
    const bare = clientAnswering(() => json(200, [row, { ...row, uuid: "c3" }]));
    expect(await listCdrs(bare.client)).toMatchObject({ rowCount: 2, page: 1, pageCount: 1 });
  });

  it("gets one record by uuid, bare or enveloped", async () => {
    const bare = clientAnswering(() => json(200, row));
    expect((await getCdr(bare.client, "a/b")).hangupCause).toBe("NORMAL_CLEARING");
    expect(bare.seen[0]!.url.pathname).toBe("/api/cdrs/a%2Fb");
    const enveloped = clientAnswering(() => json(200, { code: 200, data: { ...row, hangup_cause: "USER_BUSY" } }));
    expect((await getCdr(enveloped.client, "a1b2")).hangupCause).toBe("USER_BUSY");
  });

  it("names the field when a record cannot be read", async () => {
    const { client } = clientAnswering(() => json(200, { rowCount: 1, data: [{ caller_id_number: "1" }] }));
    const e = await listCdrs(client).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PlatformError);
    expect((e as PlatformError).message).toContain("'data.0.uuid'");
  });

  it("fetches a recording with the token in a header and not in the URL", async () => {
    const { client, seen } = clientAnswering((url) =>
      url.pathname === "/api/media_files/17"
        ? json(200, mediaFile("17", "wav"))
        : new Response(new Uint8Array([82, 73, 70, 70]), { status: 200, headers: { "content-type": "audio/wav" } }),
    );
    const blob = await fetchRecording(client, "17");
    expect(blob.size).toBe(4);
    expect(seen[1]!.url.href).toBe("http://pbx.test/api/media_files/17.wav");
    expect(seen[1]!.url.search).toBe("");
    expect(seen[1]!.headers["X-XTRA-AUTH-ID"]).toBe("tok-1");
  });

  it("finds a recording under the extension its media file record gives, not a fixed .wav", async () => {
    const { client, seen } = clientAnswering((url) =>
      url.pathname === "/api/media_files/21"
        ? json(200, { code: 200, message: "success", data: mediaFile("21", "mp3") })
        : new Response(new Uint8Array([73, 68, 51]), { status: 200, headers: { "content-type": "audio/mpeg" } }),
    );
    expect((await fetchRecording(client, "21")).size).toBe(3);
    expect(seen.map((r) => r.url.pathname)).toEqual(["/api/media_files/21", "/api/media_files/21.mp3"]);

    const odd = clientAnswering(() => json(200, mediaFile("22", "../x")));
    expect(await fetchRecording(odd.client, "22").catch((x: unknown) => x)).toMatchObject({ kind: "decode" });
    expect(odd.seen).toHaveLength(1);
  });

  it("turns a missing recording into a typed error", async () => {
    const { client } = clientAnswering((url) =>
      url.pathname === "/api/media_files/18"
        ? json(200, mediaFile("18", "wav"))
        : json(404, { code: 404, text: "Media File Does Not Exist" }),
    );
    const e = (await fetchRecording(client, "18").catch((x: unknown) => x)) as PlatformError;
    expect(e).toBeInstanceOf(PlatformError);
    expect(e).toMatchObject({
      kind: "http",
      status: 404,
      message: "Media File Does Not Exist",
      endpoint: "GET /api/media_files/18.wav",
    });
  });

  it("reads stamps: local time, ISO, epoch seconds and ms; empty and zero are no time", () => {
    expect(parseStamp("2031-05-06 14:35")).toBe(new Date(2031, 4, 6, 14, 35).getTime());
    expect(parseStamp("2031-05-06T14:35:00Z")).toBe(Date.UTC(2031, 4, 6, 14, 35));
    expect(parseStamp("1958000000")).toBe(1958000000000);
    expect(parseStamp("1958000000123")).toBe(1958000000123);
    expect(parseStamp("")).toBeNull();
    expect(parseStamp("0")).toBeNull();
    expect(parseStamp("0000-00-00 00:00:00")).toBeNull();
    expect(parseStamp("yesterday")).toBeNull();
  });

  it("reads the platform's full stamps as local time the way the general reading does, and leaves odd ones to it", () => {
    // Every hour of a year (clock changes included) and a few minutes and seconds: the short way
    // gives the moment the general one does.
    const pad = (n: number) => String(n).padStart(2, "0");
    for (let t = new Date(2031, 0, 1).getTime(); t < new Date(2032, 0, 1).getTime(); t += 3_600_000 + 61_000) {
      const d = new Date(t);
      const [y, mo, day, h, mi, s] = [
        d.getFullYear(),
        d.getMonth(),
        d.getDate(),
        d.getHours(),
        d.getMinutes(),
        d.getSeconds(),
      ];
      const stamp = `${y}-${pad(mo + 1)}-${pad(day)} ${pad(h)}:${pad(mi)}:${pad(s)}`;
      expect(parseStamp(stamp)).toBe(new Date(y, mo, day, h, mi, s).getTime());
      expect(parseStamp(stamp.replace(" ", "T"))).toBe(new Date(y, mo, day, h, mi, s).getTime());
    }
    expect(parseStamp("2031-02-30 10:00:00")).toBe(new Date(2031, 1, 30, 10).getTime());
    expect(parseStamp(" 2031-05-06 14:35:07 ")).toBe(new Date(2031, 4, 6, 14, 35, 7).getTime());
    expect(parseStamp("2031-05-06 14:35:0x")).toBe(Date.parse("2031-05-06 14:35:0x") || null);
    expect(parseStamp("0000-01-01 00:00:00")).toBeNull();
  });

  it("refuses a page with a record it cannot read, naming the record and the field", async () => {
    const answer = (data: unknown[]) => clientAnswering(() => json(200, { rowCount: data.length, data })).client;
    for (const [data, where] of [
      [[row, { ...row, duration: { seconds: 70 } }], "data.1.duration"],
      [[row, row, { ...row, uuid: undefined }], "data.2.uuid"],
      [[{ ...row, caller_id_name: ["Alice"] }], "data.0.caller_id_name"],
      [[row, { ...row, variables: "cc_queue=support" }], "data.1.variables"],
      [[row, "a1b2"], "data.1"],
    ] as const) {
      const err = await listCdrs(answer([...data])).catch((x: unknown) => x);
      expect(err).toBeInstanceOf(PlatformError);
      expect(err).toMatchObject({ kind: "decode", message: expect.stringContaining(`at '${where}'`) });
    }
    // Absent and null fields are empty, as before: a spec-minimal record is read.
    const bare = await listCdrs(answer([{ uuid: 7, caller_id_name: null }]));
    expect(bare.data[0]).toMatchObject({ uuid: "7", callerName: "", duration: 0, startedAt: null, cc: {} });
    expect((await getCdr(answer([]), "7").catch((x: unknown) => x)) as PlatformError).toMatchObject({ kind: "decode" });
  });
});
