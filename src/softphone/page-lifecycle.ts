/** The window/document events the phone follows; an interface so tests can fire them. */
export interface PageEventTarget {
  addEventListener(type: string, listener: (event?: Event) => void): void;
  removeEventListener(type: string, listener: (event?: Event) => void): void;
  /** `document.visibilityState`, when the target can tell. */
  readonly visibilityState?: DocumentVisibilityState;
}

export interface PageLifecycleHandlers {
  /** The network came back, the tab became visible again after its timers were throttled, or the browser woke the page from freezing. */
  onWake(): void;
  /** The browser is freezing the page: nothing of it runs after this event until `resume`. */
  onFreeze(): void;
  /** The page is going away (or into the back/forward cache). */
  onUnload(): void;
  /** The page came back from the back/forward cache after `onUnload`. */
  onRestore(): void;
}

/**
 * `online`, `visibilitychange` and `resume` (the page was frozen: none of its timers ran) trigger a
 * connection check (a socket can die silently while the laptop sleeps, the tab is in the
 * background or the page is frozen); `freeze` lets the phone stop taking calls it could not ring
 * for; `pagehide` unregisters and hangs up, since no
 * asynchronous work survives an unload; `pageshow` from the back/forward cache brings the phone back.
 */
export class PageLifecycle {
  private readonly onOnline = () => this.handlers.onWake();
  private readonly onVisibility = () => {
    if (this.document?.visibilityState !== "hidden") this.handlers.onWake();
  };
  private readonly onResume = () => this.handlers.onWake();
  private readonly onFreeze = () => this.handlers.onFreeze();
  private readonly onPageHide = () => this.handlers.onUnload();
  private readonly onPageShow = (event?: Event) => {
    if ((event as PageTransitionEvent | undefined)?.persisted) this.handlers.onRestore();
  };

  constructor(
    private readonly window: PageEventTarget | undefined,
    private readonly document: PageEventTarget | undefined,
    private readonly handlers: PageLifecycleHandlers,
  ) {}

  attach(): void {
    this.window?.addEventListener("online", this.onOnline);
    this.window?.addEventListener("pagehide", this.onPageHide);
    this.window?.addEventListener("pageshow", this.onPageShow);
    this.document?.addEventListener("visibilitychange", this.onVisibility);
    this.document?.addEventListener("resume", this.onResume);
    this.document?.addEventListener("freeze", this.onFreeze);
  }

  detach(): void {
    this.window?.removeEventListener("online", this.onOnline);
    this.window?.removeEventListener("pagehide", this.onPageHide);
    this.window?.removeEventListener("pageshow", this.onPageShow);
    this.document?.removeEventListener("visibilitychange", this.onVisibility);
    this.document?.removeEventListener("resume", this.onResume);
    this.document?.removeEventListener("freeze", this.onFreeze);
  }
}
