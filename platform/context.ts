import type { AppConfig } from "./app-config";
import type { AuthService } from "./auth/sessions";
import type { CaptchaService } from "./auth/captcha";
import type { Clock } from "./clock";
import type { PlatformOptions } from "./config";
import type { Db } from "./store/db";
import type { UserStore } from "./store/users";
import type { CdrStore } from "./cdr/cdr-store";
import type { MediaFileStore } from "./cdr/media-files";
import type { MediaPlane } from "./media";
import type { OriginPolicy } from "./origins";
import type { SimWorld } from "./sim/sim-world";
import type { SipServer } from "./sip/sip-server";
import type { Switch } from "./switch/types";

/** The services of one running platform, handed to every part that needs them. */
export interface PlatformContext {
  options: PlatformOptions;
  /** The platform's clock (see clock.ts). */
  now: Clock;
  /** The app's config.json as served, and the frame-ancestors it gives. */
  appConfig: AppConfig;
  db: Db;
  users: UserStore;
  auth: AuthService;
  captchas: CaptchaService;
  /** The web origins the platform trusts (CORS, WebSockets from browsers, framing). */
  origins: OriginPolicy;
  /** The soft-switch (platform/switch/types.ts is its contract): channels, bridges, events. */
  switch: Switch;
  media: MediaPlane;
  sip: SipServer;
  sim: SimWorld;
  cdrs: CdrStore;
  mediaFiles: MediaFileStore;
}
