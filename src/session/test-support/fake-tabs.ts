import type { LockManagerLike, TabChannel, TabCoordination } from "../phone-owner";

const abortError = () => new DOMException("The lock request is aborted", "AbortError");

interface Request {
  tab: FakeTab;
  callback: () => Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/**
 * The tabs of one browser partition as the election sees them: Web Locks with the browser's
 * rules (a queue per name, `steal`, `signal`, release when the holder's callback settles or its
 * tab goes away) and a BroadcastChannel that delivers to every other tab asynchronously, as a
 * structured clone. A tab can be closed (its locks go to the next in line) or frozen (it gets
 * `freeze`, then runs nothing until it is thawed, and then what was sent meanwhile; or, as
 * Chromium does, it is still handed its channel's messages).
 */
export class FakeBrowser {
  private readonly holders = new Map<string, Request>();
  private readonly queues = new Map<string, Request[]>();
  readonly channels = new Set<{ tab: FakeTab; name: string; listeners: Set<(e: { data: unknown }) => void> }>();
  /** Every message posted on a channel, in the order the tabs posted them (delivery comes later). */
  readonly posted: { tab: FakeTab; name: string; data: unknown }[] = [];

  tab(): FakeTab {
    return new FakeTab(this);
  }

  /** @internal */
  request(
    tab: FakeTab,
    name: string,
    options: { steal?: boolean; signal?: AbortSignal },
    callback: () => Promise<void>,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const r: Request = { tab, callback, resolve, reject };
      if (options.steal) {
        const holder = this.holders.get(name);
        this.holders.delete(name);
        holder?.reject(abortError());
        this.grant(name, r);
        return;
      }
      if (options.signal?.aborted) return reject(abortError());
      options.signal?.addEventListener("abort", () => {
        const q = this.queues.get(name) ?? [];
        const i = q.indexOf(r);
        if (i < 0) return;
        q.splice(i, 1);
        reject(abortError());
      });
      const q = this.queues.get(name) ?? [];
      this.queues.set(name, q);
      q.push(r);
      this.next(name);
    });
  }

  private next(name: string) {
    if (this.holders.has(name)) return;
    const r = this.queues.get(name)?.shift();
    if (r) this.grant(name, r);
  }

  private grant(name: string, r: Request) {
    this.holders.set(name, r);
    void Promise.resolve()
      .then(() => r.callback())
      .then(
        () => {
          if (this.holders.get(name) !== r) return;
          this.holders.delete(name);
          r.resolve();
          this.next(name);
        },
        (e: unknown) => {
          if (this.holders.get(name) !== r) return;
          this.holders.delete(name);
          r.reject(e);
          this.next(name);
        },
      );
  }

  /** @internal The tab is gone: its locks are released and its requests dropped. */
  forget(tab: FakeTab) {
    for (const [name, q] of this.queues)
      this.queues.set(
        name,
        q.filter((r) => r.tab !== tab),
      );
    for (const [name, r] of [...this.holders]) {
      if (r.tab !== tab) continue;
      this.holders.delete(name);
      this.next(name);
    }
    for (const c of [...this.channels]) if (c.tab === tab) this.channels.delete(c);
  }

  /** Which tab holds a lock. */
  holder(name: string): FakeTab | undefined {
    return this.holders.get(name)?.tab;
  }
}

export class FakeTab {
  private frozen: (() => void)[] | undefined;
  closed = false;
  /** The browser keeps storage (and Web Locks) from this page, as from a third-party frame without storage access. */
  storageDenied = false;
  readonly locks: LockManagerLike;
  readonly document = new EventTarget();

  constructor(private readonly browser: FakeBrowser) {
    this.locks = {
      request: (name, options, callback) =>
        this.storageDenied
          ? Promise.reject(new DOMException("The request was denied.", "SecurityError"))
          : browser.request(this, name, options, callback),
    };
  }

  coordination(livenessMs = { every: 40, answerWithin: 200 }): TabCoordination {
    return { locks: this.locks, openChannel: (name) => this.open(name), livenessMs, document: this.document };
  }

  open(name: string): TabChannel {
    const entry = { tab: this, name, listeners: new Set<(e: { data: unknown }) => void>() };
    this.browser.channels.add(entry);
    return {
      postMessage: (message) => {
        if (this.closed || this.frozen) return;
        const data = structuredClone(message);
        this.browser.posted.push({ tab: this, name, data });
        for (const c of this.browser.channels) {
          if (c === entry || c.name !== name) continue;
          setTimeout(() => c.tab.deliver(() => c.listeners.forEach((l) => l({ data }))), 0);
        }
      },
      addEventListener: (_type, l) => entry.listeners.add(l),
      removeEventListener: (_type, l) => entry.listeners.delete(l),
      close: () => this.browser.channels.delete(entry),
    };
  }

  /** @internal */
  deliver(f: () => void) {
    if (this.closed) return;
    if (this.frozen) this.frozen.push(f);
    else f();
  }

  /** Posts a message on the agent's channel as this tab (for messages a test makes up). */
  post(name: string, message: unknown) {
    const ch = this.open(name);
    ch.postMessage(message);
    ch.close();
  }

  close() {
    this.closed = true;
    this.browser.forget(this);
  }

  /**
   * The browser freezes the tab: the page gets `freeze` (and may post from it), then runs nothing
   * until thawed. `receives`: its channel's messages still reach it, as Chromium hands them to a
   * frozen page. `event: false`: a page that stops without a word (no `freeze`).
   */
  freeze({ event = true, receives = false }: { event?: boolean; receives?: boolean } = {}) {
    if (event) this.document.dispatchEvent(new Event("freeze"));
    if (!receives) this.frozen ??= [];
  }

  thaw() {
    const queued = this.frozen ?? [];
    this.frozen = undefined;
    this.document.dispatchEvent(new Event("resume"));
    queued.forEach((f) => f());
  }
}
