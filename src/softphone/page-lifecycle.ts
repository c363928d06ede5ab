/** The window/document events the phone follows; an interface so tests can fire them. */
export interface PageEventTarget {
  addEventListener(type: string, listener: (event?: Event) => void): void;
  removeEventListener(type: string, listener: (event?: Event) => void): void;
  /** `document.visibilityState`, when the target can tell. */
  readonly visibilityState?: DocumentVisibilityState;
}

export interface PageLifecycleHandlers {
  /** The network came back, or the tab became visible again after its timers were throttled. */
  onWake(): void;
  /** The page is going away (or into the back/forward cache). */
  onUnload(): void;
  /** The page came back from the back/forward cache after `onUnload`. */
  onRestore(): void;
}

/**
 * `online` and `visibilitychange` trigger a connection check (a socket can die silently while the
 * laptop sleeps or the tab is in the background); `pagehide` unregisters and hangs up, since no
 * asynchronous work survives an unload; `pageshow` from the back/forward cache brings the phone back.
 */
export class PageLifecycle {
  private readonly onOnline = () => this.handlers.onWake();
  private readonly onVisibility = () => {
    if (this.document?.visibilityState !== "hidden") this.handlers.onWake();
  };
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
  }

  detach(): void {
    this.window?.removeEventListener("online", this.onOnline);
    this.window?.removeEventListener("pagehide", this.onPageHide);
    this.window?.removeEventListener("pageshow", this.onPageShow);
    this.document?.removeEventListener("visibilitychange", this.onVisibility);
  }
}
