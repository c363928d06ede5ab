import { AgentbarError, handshake, type Connection, type HostEvents } from "./connection";
import { dialLinks } from "./links";
import type { CommandArgs } from "./commands";
import type { CommandName, CommandResult, Scope, Snapshot, StatusChoice } from "./protocol";

export type Layout = "bar" | "side" | "full";

export interface EmbedOptions {
  /** The app's address, e.g. `https://agentbar.example.com/`. */
  url: string;
  /** The element the frame is put in. */
  container: Element;
  /** `bar` (one line, default), `side` (a 320-400 px panel) or `full`. */
  layout?: Layout;
  /** CSS width and height of the frame; by default the layout's (bar: 100% × 56px, side: 360px × 100%, full: 100% × 100%). */
  width?: string;
  height?: string;
  /** The frame's accessible name. */
  title?: string;
  /**
   * Called at each connection (also after the app reloaded): a short-lived token for the app to
   * sign in with when nobody is signed in. Anything the page's scripts can read, they can use: see
   * docs/embedding.md before you pass one.
   */
  credential?: () => string | Promise<string>;
  /** How long to wait for the app to answer the handshake (default 15 s). */
  connectTimeoutMs?: number;
  /** How long a command may wait for its confirmation (default 60 s). */
  commandTimeoutMs?: number;
}

const CONNECT_TIMEOUT_MS = 15_000;

const SIZES: Record<Layout, [string, string]> = {
  bar: ["100%", "56px"],
  side: ["360px", "100%"],
  full: ["100%", "100%"],
};

/**
 * Frames the Agentbar app and connects to it. Resolves once the app answered the handshake, with
 * its state; rejects with `AgentbarError` `no-answer` when it never does (the app is not there,
 * or this page's origin is not allowed: the app does not say which) or `unsupported-version`.
 */
export async function embed(options: EmbedOptions): Promise<Agentbar> {
  const url = new URL(options.url, location.href);
  const layout = options.layout ?? "bar";
  url.searchParams.set("layout", layout);
  const frame = document.createElement("iframe");
  frame.src = url.href;
  frame.title = options.title ?? "Agentbar";
  // The phone needs the microphone, and the ringtone must play without a click in the frame.
  frame.allow = "microphone; autoplay";
  const [width, height] = SIZES[layout];
  Object.assign(frame.style, {
    width: options.width ?? width,
    height: options.height ?? height,
    border: "0",
    display: "block",
  });
  const bar = new Agentbar(frame, url.origin, options);
  options.container.append(frame);
  try {
    await bar.ready;
  } catch (e) {
    bar.destroy();
    const why = e instanceof AgentbarError && e.code === "no-answer" ? await whyNoAnswer(url) : undefined;
    const error = why
      ? new AgentbarError("no-answer", NOTICES.en[why](location.origin, url.origin))
      : e instanceof AgentbarError
        ? e
        : new AgentbarError("failed", String(e));
    const chinese = /^zh\b/i.test(document.documentElement.lang || navigator.language);
    showNotice(
      options.container,
      why ? NOTICES[chinese ? "zh" : "en"][why](location.origin, url.origin) : `Agentbar: ${error.message}`,
    );
    throw error;
  }
  return bar;
}

type NoAnswer = "not-allowed" | "unreachable";

/** The notice of an app that never answered, in English (also the error's message) and in Chinese. */
const NOTICES: Record<"en" | "zh", Record<NoAnswer, (page: string, app: string) => string>> = {
  en: {
    "not-allowed": (page, app) => `This page's origin (${page}) is not allowed by Agentbar's configuration at ${app}`,
    unreachable: (_, app) => `Agentbar did not answer at ${app}`,
  },
  zh: {
    "not-allowed": (page, app) => `此页面的来源（${page}）未获 ${app} 上 Agentbar 的配置允许`,
    unreachable: (_, app) => `${app} 上的 Agentbar 没有应答`,
  },
};

/**
 * Why the app did not answer, as well as this page can tell: the app's server answers (the frame
 * was refused, or the app ignored this page: its origin is not on the app's list; the app never
 * says which, by design), or it does not (a wrong address, the app is down).
 */
function whyNoAnswer(url: URL): Promise<NoAnswer> {
  return fetch(url.href, { mode: "no-cors", cache: "no-store", credentials: "omit" }).then(
    () => "not-allowed",
    () => "unreachable",
  );
}

/** A short notice in the container, in place of the frame. */
function showNotice(container: Element, text: string): void {
  const notice = document.createElement("p");
  notice.setAttribute("role", "alert");
  notice.className = "agentbar-notice";
  notice.textContent = text;
  notice.style.cssText =
    "margin:0;padding:8px 12px;font:14px/1.4 system-ui,sans-serif;color:#5c2b00;background:#fff4e5;border:1px solid #d9822b";
  container.append(notice);
}

/** The framed app: its state, its events and its commands. */
export class Agentbar {
  /** Settles with the first connection. */
  readonly ready: Promise<void>;
  private connection: Connection | undefined;
  private readonly listeners = new Map<string, Set<(data: never) => void>>();
  private readonly instance = Math.random().toString(36).slice(2);
  /** Counts the frame's loads: a handshake with an older page is given up. */
  private generation = 0;
  private readonly onLoad: () => void;
  /** Whether a connection was made before: the next one is a reconnection. */
  private connected = false;

  constructor(
    readonly frame: HTMLIFrameElement,
    private readonly origin: string,
    private readonly options: EmbedOptions,
  ) {
    let settled = false;
    let settle: (error?: unknown) => void = () => {};
    this.ready = new Promise<void>((resolve, reject) => {
      settle = (e) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        if (e) reject(e);
        else resolve();
      };
    });
    // A frame that never loads (a server that keeps the request open) gets no handshake at all.
    const deadline = setTimeout(
      () => settle(new AgentbarError("no-answer", "Agentbar did not load")),
      options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    );
    // Every load of the frame is a new app page (the first one, or a reload): connect again.
    this.onLoad = () => {
      if (this.connection) this.lose("Agentbar reloaded");
      this.connect().then(
        () => settle(),
        (e: unknown) => {
          // A handshake given up for a newer page is no failure: that page's handshake decides.
          if (e instanceof AgentbarError && e.code === "disconnected") return;
          // The first connection's failure is embed()'s to report; after it, the SDK keeps trying.
          if (!settled) return settle(e);
          this.reconnect();
        },
      );
    };
    frame.addEventListener("load", this.onLoad);
  }

  /** The app's whole state, kept up to date. */
  get state(): Snapshot | undefined {
    return this.connection?.state;
  }

  /** What this page's origin may do, as the app's configuration says. */
  get scopes(): readonly Scope[] {
    return this.connection?.scopes ?? [];
  }

  on<E extends keyof HostEvents>(event: E, listener: (data: HostEvents[E]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as (data: never) => void);
    return () => void set.delete(listener as (data: never) => void);
  }

  /** Any command of the protocol; the named methods below are the same with typed arguments. */
  send<C extends CommandName>(command: C, args: CommandArgs<C>): Promise<CommandResult<C>> {
    return this.connection
      ? this.connection.send(command, args)
      : Promise.reject(new AgentbarError("disconnected", "Agentbar is not connected"));
  }

  /** Places a call; resolves once the agent's phone has it. */
  dial(number: string): Promise<CommandResult<"dial">> {
    return this.send("dial", { number });
  }
  answer(callId?: string): Promise<CommandResult<"answer">> {
    return this.send("answer", ref(callId));
  }
  reject(callId?: string, options: { busy?: boolean } = {}): Promise<CommandResult<"reject">> {
    return this.send("reject", { ...ref(callId), ...options });
  }
  hangUp(callId?: string): Promise<CommandResult<"hangUp">> {
    return this.send("hangUp", ref(callId));
  }
  hold(callId?: string): Promise<CommandResult<"hold">> {
    return this.send("hold", ref(callId));
  }
  resume(callId?: string): Promise<CommandResult<"resume">> {
    return this.send("resume", ref(callId));
  }
  mute(callId?: string): Promise<CommandResult<"mute">> {
    return this.send("mute", ref(callId));
  }
  unmute(callId?: string): Promise<CommandResult<"unmute">> {
    return this.send("unmute", ref(callId));
  }
  sendDtmf(digits: string, callId?: string): Promise<CommandResult<"sendDtmf">> {
    return this.send("sendDtmf", { digits, ...ref(callId) });
  }
  transfer(destination: string, callId?: string): Promise<CommandResult<"transfer">> {
    return this.send("transfer", { destination, ...ref(callId) });
  }
  /** Consults `destination` (an attended transfer's first step); resolves once the consultation is under way. */
  consult(destination: string, callId?: string): Promise<CommandResult<"consult">> {
    return this.send("consult", { destination, ...ref(callId) });
  }
  /** Leaves the consultation: the other party and the consulted one stay together; resolves once the agent's call ended. */
  completeTransfer(callId?: string): Promise<CommandResult<"completeTransfer">> {
    return this.send("completeTransfer", ref(callId));
  }
  cancelConsultation(callId?: string): Promise<CommandResult<"cancelConsultation">> {
    return this.send("cancelConsultation", ref(callId));
  }
  /** `destination` joins the call: everyone hears everyone. */
  threeWay(destination: string, callId?: string): Promise<CommandResult<"threeWay">> {
    return this.send("threeWay", { destination, ...ref(callId) });
  }
  /** Resolves once the platform confirmed the status (or, during a call, once it is the next status). */
  setStatus(status: StatusChoice, reason?: string): Promise<CommandResult<"setStatus">> {
    return this.send("setStatus", reason === undefined ? { status } : { status, reason });
  }
  getState(): Promise<CommandResult<"getState">> {
    return this.send("getState", {});
  }
  setDisposition(
    callId: string,
    outcome: string,
    notes: string,
    options: { done?: boolean } = {},
  ): Promise<CommandResult<"setDisposition">> {
    return this.send("setDisposition", { callId, outcome, notes, ...options });
  }
  getDiagnostics(): Promise<CommandResult<"getDiagnostics">> {
    return this.send("getDiagnostics", {});
  }
  /** The diagnostics file the agent would download for support (needs `diagnostics` and `caller-data`). */
  getDiagnosticsFile(): Promise<CommandResult<"getDiagnosticsFile">> {
    return this.send("getDiagnosticsFile", {});
  }

  /**
   * Opt-in: clicks on `tel:` and `sip:` links inside `root` (default: the whole page) dial with
   * the app. A refused dial goes to `onError` (default: the console). Returns the function that stops it.
   */
  dialLinks(
    root: Document | Element = document,
    onError = (e: unknown, target: string) => console.warn(`agentbar: could not dial ${target}`, e),
  ): () => void {
    return dialLinks(root, (target) => this.dial(target), onError);
  }

  /** Disconnects and removes the frame. */
  destroy(): void {
    this.generation = -1;
    this.frame.removeEventListener("load", this.onLoad);
    this.connection?.close("Agentbar was removed from the page");
    this.connection = undefined;
    this.frame.remove();
  }

  /** The connection is gone: commands under way reject at once, and the host is told. */
  private lose(reason: string): void {
    this.connection?.close(reason);
    this.connection = undefined;
    this.emit("disconnected", { reason });
  }

  /** Connects again until the app answers (or a newer page's handshake takes over), repeating quietly. */
  private reconnect(): void {
    this.connect().catch((e: unknown) => {
      if (e instanceof AgentbarError && e.code === "disconnected") return;
      if (this.generation >= 0) this.reconnect();
    });
  }

  private emit<E extends keyof HostEvents>(event: E, data: HostEvents[E]): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        (listener as (d: HostEvents[E]) => void)(data);
      } catch (e) {
        // One listener's bug must not keep the others from hearing the event.
        console.error("agentbar: a listener failed", e);
      }
    }
  }

  private async connect(): Promise<void> {
    const o = this.options;
    const generation = ++this.generation;
    const cancelled = () => this.generation !== generation;
    const token = o.credential ? await o.credential() : undefined;
    const connection = await handshake({
      post: (message, port) => this.frame.contentWindow?.postMessage(message, this.origin, [port]),
      // Each page of the frame is connected to as a new instance, so the app never takes a
      // repeat of an older page's handshake for this one.
      instance: `${this.instance}-${generation}`,
      cancelled,
      ...(token ? { credential: { token } } : {}),
      timeoutMs: o.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      commandTimeoutMs: o.commandTimeoutMs ?? 60_000,
      emit: (event, data) => this.emit(event, data),
      lost: (reason) => {
        if (this.connection !== connection) return;
        this.lose(reason);
        this.reconnect();
      },
    });
    if (cancelled()) {
      connection.close();
      throw new AgentbarError("disconnected", "Agentbar reloaded");
    }
    const again = this.connected;
    this.connection = connection;
    this.connected = true;
    if (again) this.emit("reconnected", { state: connection.state });
    this.emit("state", connection.state);
  }
}

const ref = (callId: string | undefined) => (callId === undefined ? {} : { callId });
