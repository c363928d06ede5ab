import { WebSocketServer, type WebSocket } from "ws";
import { expect } from "@playwright/test";

/**
 * A SIP-over-WebSocket server that writes what the test tells it to, byte for byte: a registrar
 * that takes any REGISTER (no authentication) and answers OPTIONS and keep-alives, and otherwise
 * sends the requests the test gives it and keeps what the phone sends back. It stands for a
 * server that builds its messages carelessly (a name written into From unescaped), which no
 * well-behaved proxy would relay.
 */
export interface RawSipServer {
  /** ws://127.0.0.1:PORT */
  url: string;
  /** Sends a message to the phone connected last. */
  send(raw: string): void;
  /** The first message from the phone that matches (waiting for it); each is taken once. */
  next(matches: (m: string) => boolean, what: string): Promise<string>;
  close(): Promise<void>;
}

const header = (raw: string, name: string) => new RegExp(`^${name}:[^\\r\\n]*`, "im").exec(raw)?.[0] ?? "";

export async function startRawSipServer(): Promise<RawSipServer> {
  const wss = new WebSocketServer({
    host: "127.0.0.1",
    port: 0,
    handleProtocols: (protocols) => (protocols.has("sip") ? "sip" : false),
  });
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  const received: string[] = [];
  let socket: WebSocket | undefined;
  wss.on("connection", (ws) => {
    socket = ws;
    ws.on("message", (data) => {
      const raw = data.toString();
      if (/^(\r\n)+$/.test(raw)) return ws.send("\r\n");
      const method = /^(REGISTER|OPTIONS) /.exec(raw)?.[1];
      if (!method) return void received.push(raw);
      const contact = /^Contact:\s*<([^>]+)>/im.exec(raw)?.[1];
      const vias = raw.match(/^Via:[^\r\n]*/gim) ?? [];
      const to = header(raw, "To");
      ws.send(
        [
          "SIP/2.0 200 OK",
          ...vias,
          header(raw, "From"),
          /;\s*tag=/i.test(to) ? to : `${to};tag=raw`,
          header(raw, "Call-ID"),
          header(raw, "CSeq"),
          ...(method === "REGISTER" && contact ? [`Contact: <${contact}>;expires=60`] : []),
          "Content-Length: 0",
          "",
          "",
        ].join("\r\n"),
      );
    });
  });
  const address = wss.address();
  if (!address || typeof address !== "object") throw new Error("the raw SIP server has no address");
  return {
    url: `ws://127.0.0.1:${address.port}`,
    send: (raw) => {
      if (!socket) throw new Error("no phone is connected to the raw SIP server");
      socket.send(raw);
    },
    next: async (matches, what) => {
      let found: string | undefined;
      await expect
        .poll(
          () => {
            const i = received.findIndex(matches);
            if (i >= 0) found = received.splice(i, 1)[0];
            return found !== undefined;
          },
          { message: `the raw SIP server receives ${what}` },
        )
        .toBe(true);
      return found!;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  };
}
