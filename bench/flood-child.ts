/**
 * Child process of the floods benchmark: the attacker, so that its own work (building and
 * sending thousands of messages a second) does not slow down the agent measured in the parent.
 * Starts the flood named in the first argument (JSON) and, on "stop", stops it and reports what
 * it sent and got back.
 */
import { DEMO_DOMAIN } from "../test/integration/harness";
import { bigSipMessages, registerFlood, unreadBatches, type Flood } from "../test/integration/floods";

export type FloodRequest =
  | { kind: "unread-batches"; url: string; sockets: number; tokens: (string | undefined)[] }
  | { kind: "big-sip"; url: string; sockets: number; bytes: number; localAddress: string }
  | { kind: "register-flood"; url: string; sockets: number; perSecond: number; localAddress: string };

export interface FloodReport {
  sent: number;
  answers: number;
  closedByPlatform: number;
}

const request = JSON.parse(process.argv[2]!) as FloodRequest;

function start(r: FloodRequest): Flood {
  switch (r.kind) {
    case "unread-batches":
      return unreadBatches(r.url, {
        sockets: r.sockets,
        frames: Infinity,
        token: (i) => r.tokens[i] ?? undefined,
        login: (i) => `${1000 + i}@${DEMO_DOMAIN}`,
      });
    case "big-sip":
      return bigSipMessages(r.url, { ...r, count: Infinity });
    case "register-flood":
      return registerFlood(r.url, { ...r, perSocket: Infinity });
  }
}

const flood = start(request);
process.on("message", (m) => {
  if (m !== "stop") return;
  flood.stop();
  const report: FloodReport = { sent: flood.sent, answers: flood.answers, closedByPlatform: flood.closedByPlatform };
  process.send!(report, () => process.exit(0));
});
process.send!("started");
