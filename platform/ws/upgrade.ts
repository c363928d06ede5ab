import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { OriginPolicy } from "../origins";

export type WsHandler = (socket: WebSocket, req: IncomingMessage) => void;

/**
 * Routes WebSocket upgrades. `/ws` carries two protocols, chosen by Sec-WebSocket-Protocol as on
 * the real platform's proxy: `sip` (RFC 7118) goes to SIP, no subprotocol to the JSON-RPC event
 * channel. `/sip` is SIP only. A browser says which page opens a socket (`Origin`): only the pages
 * the platform trusts may; phones and other programs send no Origin.
 */
export class UpgradeRouter {
  private sip?: WsHandler;
  private rpc?: WsHandler;
  /**
   * Frames larger than `maxPayload` close the socket (1009) before they are read: for SIP twice
   * the largest message the hub accepts (32 KiB, answered 513 above it), for JSON-RPC four times
   * the largest frame the channel accepts (64 KiB, answered with an error above it).
   */
  private readonly sipServer = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024,
    handleProtocols: (protocols) => (protocols.has("sip") ? "sip" : false),
  });
  private readonly rpcServer = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });

  constructor(private readonly origins: OriginPolicy) {}

  onSip(handler: WsHandler) {
    this.sip = handler;
  }

  onRpc(handler: WsHandler) {
    this.rpc = handler;
  }

  handle = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? "").split("?")[0];
    const offered = String(req.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((p) => p.trim());
    const wantsSip = offered.includes("sip");
    const handler =
      path === "/sip"
        ? wantsSip
          ? this.sip
          : undefined
        : path === "/ws"
          ? wantsSip
            ? this.sip
            : this.rpc
          : undefined;
    if (!handler) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !this.origins.trusts(origin, req.headers.host)) {
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
      return;
    }
    const wss = handler === this.sip ? this.sipServer : this.rpcServer;
    wss.handleUpgrade(req, socket, head, (ws) => handler(ws, req));
  };

  close() {
    for (const wss of [this.sipServer, this.rpcServer]) {
      for (const client of wss.clients) client.terminate();
      wss.close();
    }
  }
}
