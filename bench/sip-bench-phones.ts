/**
 * Child process of the switch capacity benchmark: the phones. Each is a sip.js UserAgent on its
 * own WebSocket to the platform with a light WebRTC media end (a looped tone out, Opus decoded
 * in), so that the platform's process carries only the platform. Talks to the parent over IPC.
 */
import "../platform/sip/node-webrtc";
import {
  Inviter,
  Registerer,
  RegistererState,
  SessionState,
  UserAgent,
  Web,
  type Invitation,
  type Session,
  type SessionDescriptionHandlerFactory,
} from "sip.js";
import { MediaClock } from "../platform/media/media-clock";
import { LightBrowser } from "./light-browser";

export type PhoneRequest =
  | { op: "phones"; id: number; url: string; domain: string; password: string; extensions: string[] }
  | { op: "call"; id: number; from: string; to: string }
  | { op: "check"; id: number; calls: number[] }
  | { op: "cpu"; id: number }
  | { op: "close"; id: number };

export interface PhoneReply {
  id: number;
  call?: number;
  heard?: (number | undefined)[];
  cpuMicros?: number;
  error?: string;
}

const browsers = new Set<LightBrowser>();
const clock = new MediaClock();
clock.onTick(() => {
  for (const browser of browsers) browser.speak();
});
clock.start();

class LightHandler extends Web.SessionDescriptionHandler {
  readonly browser: LightBrowser;

  constructor(logger: ConstructorParameters<typeof Web.SessionDescriptionHandler>[0], frequency: number) {
    // The browser's track is on the connection already; sip.js gets an empty stream to add.
    super(logger, () => Promise.resolve(new MediaStream()), {
      iceGatheringTimeout: 500,
      peerConnectionConfiguration: { ...Web.defaultPeerConnectionConfiguration(), iceServers: [] },
    });
    this.browser = new LightBrowser(frequency);
    this.browser.prepare(this.peerConnection!);
    browsers.add(this.browser);
  }

  override close(): void {
    browsers.delete(this.browser);
    this.browser.close();
    super.close();
  }
}

const factory =
  (frequency: number): SessionDescriptionHandlerFactory =>
  (session) =>
    new LightHandler(session.userAgent.getLogger("sip.SDH"), frequency);

const phones = new Map<string, UserAgent>();
const calls: { caller: Session; callee?: Session }[] = [];
const answered = new Map<string, Invitation[]>();

async function startPhone(url: string, domain: string, password: string, extension: string): Promise<void> {
  const ua = new UserAgent({
    uri: UserAgent.makeURI(`sip:${extension}@${domain}`)!,
    authorizationUsername: extension,
    authorizationPassword: password,
    transportOptions: { server: url.replace(/^http/, "ws") + "/ws", traceSip: false },
    logBuiltinEnabled: false,
    logLevel: "error",
    gracefulShutdown: false,
    sessionDescriptionHandlerFactory: factory(Number(extension) % 2 === 0 ? 440 : 1000),
    delegate: {
      onInvite: (invitation) => {
        const list = answered.get(extension) ?? [];
        list.push(invitation);
        answered.set(extension, list);
        void invitation.accept();
      },
    },
  });
  await ua.start();
  const registerer = new Registerer(ua, { expires: 3600 });
  await new Promise<void>((resolve, reject) => {
    registerer.stateChange.addListener((state) => {
      if (state === RegistererState.Registered) resolve();
    });
    registerer
      .register({
        requestDelegate: { onReject: (r) => reject(new Error(`REGISTER ${extension}: ${r.message.statusCode}`)) },
      })
      .catch(reject);
  });
  phones.set(extension, ua);
}

async function call(from: string, to: string): Promise<number> {
  const ua = phones.get(from);
  if (!ua) throw new Error(`no phone ${from}`);
  const inviter = new Inviter(ua, UserAgent.makeURI(`sip:${to}@${ua.configuration.uri.host}`)!);
  const index = calls.length;
  const entry: { caller: Session; callee?: Session } = { caller: inviter };
  calls.push(entry);
  await new Promise<void>((resolve, reject) => {
    inviter.stateChange.addListener((state) => {
      if (state === SessionState.Established) resolve();
      if (state === SessionState.Terminated) reject(new Error(`call ${from} -> ${to} ended`));
    });
    inviter.invite().catch(reject);
  });
  entry.callee = answered.get(to)?.at(-1);
  return index;
}

function heard(session: Session | undefined): number | undefined {
  return (session?.sessionDescriptionHandler as LightHandler | undefined)?.browser.dominantHeard();
}

async function handle(request: PhoneRequest): Promise<Omit<PhoneReply, "id">> {
  switch (request.op) {
    case "phones":
      for (const extension of request.extensions)
        await startPhone(request.url, request.domain, request.password, extension);
      return {};
    case "call":
      return { call: await call(request.from, request.to) };
    case "check":
      return { heard: request.calls.flatMap((i) => [heard(calls[i]?.caller), heard(calls[i]?.callee)]) };
    case "cpu": {
      const cpu = process.cpuUsage();
      return { cpuMicros: cpu.user + cpu.system };
    }
    case "close":
      clock.stop();
      for (const ua of phones.values()) await ua.stop().catch(() => undefined);
      return {};
  }
}

process.on("message", (request: PhoneRequest) => {
  handle(request).then(
    (reply) => process.send!({ ...reply, id: request.id }),
    (error: unknown) => process.send!({ id: request.id, error: String(error) }),
  );
});
process.on("disconnect", () => process.exit(0));
