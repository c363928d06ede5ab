import { describe, expect, it } from "vitest";
import { SIP_TRACE_MESSAGE_CHARS, SIP_TRACE_MESSAGES, SipTrace } from "./sip-trace";

const options = (n: number) => `OPTIONS sip:pbx.test SIP/2.0\r\nCSeq: ${n} OPTIONS\r\nContent-Length: 0\r\n\r\n`;

describe("SipTrace", () => {
  it("keeps the newest messages, leaves keep-alives out, and cuts a message that is too long", () => {
    let now = 0;
    const trace = new SipTrace(() => ++now);
    for (let n = 1; n <= SIP_TRACE_MESSAGES + 50; n++) trace.add(n % 2 ? "sent" : "received", options(n));
    trace.add("sent", "\r\n\r\n");
    const kept = trace.list();
    expect(kept).toHaveLength(SIP_TRACE_MESSAGES);
    expect(kept[0]!.text).toContain("CSeq: 51 OPTIONS");
    expect(kept.at(-1)).toMatchObject({
      direction: "received",
      summary: "OPTIONS sip:pbx.test SIP/2.0",
      at: SIP_TRACE_MESSAGES + 50,
    });
    trace.add(
      "received",
      `MESSAGE sip:1001@pbx.test SIP/2.0\r\nContent-Type: text/plain\r\n\r\n${"x".repeat(SIP_TRACE_MESSAGE_CHARS * 2)}`,
    );
    expect(trace.list().at(-1)!.text.length).toBeLessThan(SIP_TRACE_MESSAGE_CHARS + 20);
  });

  it("records what goes through a transport, redacted", async () => {
    const sent: string[] = [];
    const delivered: string[] = [];
    const transport = {
      send: (m: string) => (sent.push(m), Promise.resolve()),
      onMessage: (m: string) => void delivered.push(m),
    };
    const trace = new SipTrace();
    trace.attach(transport as never);
    await transport.send(
      'REGISTER sip:pbx.test SIP/2.0\r\nAuthorization: Digest username="1001", response="0123456789abcdef0123456789abcdef"\r\n\r\n',
    );
    transport.onMessage("SIP/2.0 200 OK\r\nCSeq: 2 REGISTER\r\n\r\n");
    expect(sent).toHaveLength(1);
    expect(delivered).toEqual(["SIP/2.0 200 OK\r\nCSeq: 2 REGISTER\r\n\r\n"]);
    expect(trace.list().map((m) => [m.direction, m.summary])).toEqual([
      ["sent", "REGISTER sip:pbx.test SIP/2.0"],
      ["received", "SIP/2.0 200 OK"],
    ]);
    expect(trace.list()[0]!.text).not.toContain("0123456789abcdef0123456789abcdef");
  });
});
