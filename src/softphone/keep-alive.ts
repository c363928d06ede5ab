import type { Core, UserAgent } from "sip.js";

/**
 * Sends OPTIONS to the registrar at an interval while connected, to find out that a socket is
 * dead before a call does: a WebSocket whose network path vanished (Wi-Fi switch, sleep, NAT
 * time-out) can stay "open" for many minutes. Any answer means alive, even an error status; no
 * answer within `timeoutSec`, or sip.js's own 408/503 (no server behind them), means dead.
 */
export class OptionsKeepAlive {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private deadline: ReturnType<typeof setTimeout> | undefined;
  private inFlight: Core.OutgoingRequest | undefined;
  private running = false;

  constructor(
    private readonly ua: UserAgent,
    private readonly intervalSec: number,
    private readonly timeoutSec: number,
    private readonly onDead: () => void,
  ) {}

  start(): void {
    if (this.intervalSec <= 0) return;
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    clearTimeout(this.deadline);
    this.timer = this.deadline = undefined;
    this.inFlight?.dispose();
    this.inFlight = undefined;
  }

  /** Checks at once (the network came back, the tab became visible): timers may have slept. */
  pingNow(): void {
    if (!this.running || this.inFlight) return;
    clearTimeout(this.timer);
    this.ping();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.ping(), this.intervalSec * 1000);
  }

  private ping(): void {
    const core = this.ua.userAgentCore;
    const aor = this.ua.configuration.uri;
    const registrar = aor.clone();
    registrar.user = undefined;
    const message = core.makeOutgoingRequestMessage("OPTIONS", registrar, aor, aor, {});
    const settle = (alive: boolean) => {
      clearTimeout(this.deadline);
      this.deadline = undefined;
      this.inFlight = undefined;
      if (!this.running) return;
      if (alive) this.schedule();
      else this.dead();
    };
    this.deadline = setTimeout(() => {
      this.inFlight?.dispose();
      settle(false);
    }, this.timeoutSec * 1000);
    this.inFlight = core.request(message, {
      onAccept: () => settle(true),
      onReject: (r) => {
        const local = !r.message.hasHeader("via");
        settle(!(local && (r.message.statusCode === 408 || r.message.statusCode === 503)));
      },
    });
  }

  private dead(): void {
    this.running = false;
    this.onDead();
  }
}
