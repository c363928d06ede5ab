import type { AuthService } from "./auth/sessions";
import type { CaptchaService } from "./auth/captcha";
import type { PlatformOptions } from "./config";
import type { Db } from "./store/db";
import type { UserStore } from "./store/users";

/** The services of one running platform, handed to every part that needs them. */
export interface PlatformContext {
  options: PlatformOptions;
  db: Db;
  users: UserStore;
  auth: AuthService;
  captchas: CaptchaService;
}
