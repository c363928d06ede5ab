import { describe, expect, it } from "vitest";
import { parseFrame } from "./json-rpc";

describe("parseFrame", () => {
  it("reads a request, a batch and a client's answer", () => {
    expect(parseFrame('{"jsonrpc":"2.0","id":1,"method":"login","params":{"a":1}}', 20)).toEqual({
      kind: "single",
      message: { kind: "request", id: 1, method: "login", params: { a: 1 } },
    });
    const batch = parseFrame('[{"jsonrpc":"2.0","id":"x","method":"echo"},{"jsonrpc":"2.0","id":5,"result":{}}]', 20);
    expect(batch).toEqual({
      kind: "batch",
      messages: [
        { kind: "request", id: "x", method: "echo", params: {} },
        { kind: "response", id: 5, ok: true },
      ],
    });
  });

  it("tells a parse error from an invalid request, keeping the id when there is one", () => {
    expect(parseFrame("{nope", 20).kind).toBe("parse-error");
    expect(parseFrame("[]", 20)).toMatchObject({ kind: "single", message: { kind: "invalid", id: null } });
    expect(parseFrame('{"id":3,"method":"echo"}', 20)).toMatchObject({
      kind: "single",
      message: { kind: "invalid", id: 3, message: expect.stringMatching(/jsonrpc/) },
    });
    expect(parseFrame('{"jsonrpc":"2.0","id":4,"method":""}', 20)).toMatchObject({
      message: { kind: "invalid", id: 4 },
    });
    expect(parseFrame('{"jsonrpc":"2.0","id":4,"method":"echo","params":[1]}', 20)).toMatchObject({
      message: { kind: "invalid", message: expect.stringMatching(/params/) },
    });
    expect(parseFrame("42", 20)).toMatchObject({ message: { kind: "invalid", id: null } });
    expect(parseFrame('{"jsonrpc":"2.0","id":{"no":1},"method":"echo"}', 20)).toMatchObject({
      message: { kind: "request", id: null },
    });
  });

  it("refuses a batch of more than the limit whole, without looking at its messages", () => {
    const batch = (n: number) => `[${Array(n).fill('{"jsonrpc":"2.0","id":1,"method":"echo"}').join(",")}]`;
    expect(parseFrame(batch(20), 20)).toMatchObject({ kind: "batch" });
    expect(parseFrame(batch(21), 20)).toEqual({
      kind: "single",
      message: { kind: "invalid", id: null, message: "Invalid Request: a batch may hold at most 20 messages, not 21" },
    });
    expect(parseFrame(`[${Array(21_000).fill("{}").join(",")}]`, 20)).toMatchObject({ kind: "single" });
  });
});
