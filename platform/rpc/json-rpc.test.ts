import { describe, expect, it } from "vitest";
import { parseFrame } from "./json-rpc";

describe("parseFrame", () => {
  it("reads a request, a batch and a client's answer", () => {
    expect(parseFrame('{"jsonrpc":"2.0","id":1,"method":"login","params":{"a":1}}')).toEqual({
      kind: "single",
      message: { kind: "request", id: 1, method: "login", params: { a: 1 } },
    });
    const batch = parseFrame('[{"jsonrpc":"2.0","id":"x","method":"echo"},{"jsonrpc":"2.0","id":5,"result":{}}]');
    expect(batch).toEqual({
      kind: "batch",
      messages: [
        { kind: "request", id: "x", method: "echo", params: {} },
        { kind: "response", id: 5, ok: true },
      ],
    });
  });

  it("tells a parse error from an invalid request, keeping the id when there is one", () => {
    expect(parseFrame("{nope").kind).toBe("parse-error");
    expect(parseFrame("[]")).toMatchObject({ kind: "single", message: { kind: "invalid", id: null } });
    expect(parseFrame('{"id":3,"method":"echo"}')).toMatchObject({
      kind: "single",
      message: { kind: "invalid", id: 3, message: expect.stringMatching(/jsonrpc/) },
    });
    expect(parseFrame('{"jsonrpc":"2.0","id":4,"method":""}')).toMatchObject({ message: { kind: "invalid", id: 4 } });
    expect(parseFrame('{"jsonrpc":"2.0","id":4,"method":"echo","params":[1]}')).toMatchObject({
      message: { kind: "invalid", message: expect.stringMatching(/params/) },
    });
    expect(parseFrame("42")).toMatchObject({ message: { kind: "invalid", id: null } });
    expect(parseFrame('{"jsonrpc":"2.0","id":{"no":1},"method":"echo"}')).toMatchObject({
      message: { kind: "request", id: null },
    });
  });
});
