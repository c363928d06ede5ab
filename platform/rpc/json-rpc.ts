/**
 * JSON-RPC 2.0 framing as mod_verto speaks it on `/ws`: a frame holds one message or an array of
 * them (XSwitch's examples send arrays); requests carry `method`, answers `result` or `error`.
 * The server also sends requests of its own (verto.event, verto.ping, verto.clientReady), which
 * clients answer with a result.
 */
export type RpcId = string | number | null;

/** Error codes: JSON-RPC 2.0's, and mod_verto's (mod_verto.h) for authentication. */
export const RpcCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  AUTH_REQUIRED: -32000,
  AUTH_FAILED: -32001,
  SESSION_ERROR: -32002,
  /** Ours: the socket sent more messages than its allowance. */
  RATE_LIMITED: -32005,
} as const;

export const METHOD_NOT_FOUND_MESSAGE = "Invalid Method, Missing Method or Permission Denied";

export interface RpcError {
  code: number;
  message: string;
  [extra: string]: unknown;
}

export type RpcReply = { jsonrpc: "2.0"; id: RpcId; result: unknown } | { jsonrpc: "2.0"; id: RpcId; error: RpcError };

export const reply = (id: RpcId, result: unknown): RpcReply => ({ jsonrpc: "2.0", id, result });
export const fail = (id: RpcId, code: number, message: string, extra: Record<string, unknown> = {}): RpcReply => ({
  jsonrpc: "2.0",
  id,
  error: { code, message, ...extra },
});

/** A message after its frame was parsed: what the session does with it. */
export type Incoming =
  | { kind: "request"; id: RpcId; method: string; params: Record<string, unknown> }
  /** A client's answer to one of the server's requests. */
  | { kind: "response"; id: RpcId; ok: boolean }
  | { kind: "invalid"; id: RpcId; message: string };

export type Frame =
  | { kind: "parse-error"; message: string }
  | { kind: "single"; message: Incoming }
  | { kind: "batch"; messages: Incoming[] };

/** A batch of more than `maxBatch` messages is refused whole, with one answer, before any is looked at. */
export function parseFrame(text: string, maxBatch: number): Frame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { kind: "parse-error", message: `Parse error: ${(e as Error).message}` };
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return invalidFrame("Invalid Request: empty batch");
    if (value.length > maxBatch)
      return invalidFrame(`Invalid Request: a batch may hold at most ${maxBatch} messages, not ${value.length}`);
    return { kind: "batch", messages: value.map(classify) };
  }
  return { kind: "single", message: classify(value) };
}

const invalidFrame = (message: string): Frame => ({ kind: "single", message: { kind: "invalid", id: null, message } });

function classify(value: unknown): Incoming {
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return { kind: "invalid", id: null, message: "Invalid Request: a message is a JSON object" };
  }
  const m = value as Record<string, unknown>;
  const id = isId(m.id) ? m.id : null;
  if (m.jsonrpc !== "2.0") return { kind: "invalid", id, message: 'Invalid Request: jsonrpc must be "2.0"' };
  if (m.method === undefined && ("result" in m || "error" in m)) return { kind: "response", id, ok: "result" in m };
  if (typeof m.method !== "string" || m.method === "")
    return { kind: "invalid", id, message: "Invalid Request: method must be a non-empty string" };
  if (m.params !== undefined && (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))) {
    return { kind: "invalid", id, message: "Invalid Request: params must be an object" };
  }
  return { kind: "request", id, method: m.method, params: (m.params as Record<string, unknown> | undefined) ?? {} };
}

const isId = (v: unknown): v is RpcId =>
  typeof v === "string" || (typeof v === "number" && Number.isFinite(v)) || v === null;
